import { Hono } from 'hono';
import { CreateRoomBody, RoleParam, RoomKey, ROLES, SettingKey, type Role } from '@seam/shared/model';
import { CloseCode } from '@seam/shared/protocol';
import type { AppDeps } from '../app';
import { Invitations, SharedInvitations } from '../auth/invitations';
import { authorize } from '../auth/require';
import { requireRoomCreator } from '../auth/require-creator';
import { hashToken, newId, newToken } from '../auth/tokens';
import { badRequest } from '../errors';
import { clientAddress } from '../auth/address-limiter';
import { RoomCreationQuota } from '../room-quotas';
import { roomTitle } from '../room-title';
import { limitBody, validate } from './validate';

/** The link a person opens for `role`: the token rides in the fragment so it never reaches logs. */
export function roomLink(base: string, roomId: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/r/${roomId}#token=${token}`;
}

/** `POST /api/rooms`, `GET /api/rooms/:id`, `POST /api/rooms/:id/links/:role/rotate`. */
export function roomRoutes(deps: AppDeps): Hono {
  const { store, rooms, config, directory, scaled } = deps;
  const app = new Hono();
  const limit = limitBody(config.limits.requestBytes, 'request body too large');
  const base = (requestUrl: string) => config.publicUrl ?? new URL(requestUrl).origin;
  // Scaled mode: the shared store's, so that a use is taken once across instances.
  const invitations = scaled ? new SharedInvitations(scaled.shared.invitations) : new Invitations(store.db);

  const creations = new RoomCreationQuota(config.limits, () => store.rooms.count());

  // Who may create rooms is settled before the quotas count the request, so that requests without
  // a live invitation cannot use up the rooms of those who hold one.
  app.post('/', async (c, next) => {
    await requireRoomCreator(c, config, invitations, 'check');
    await next();
  }, async (c, next) => {
    // Scaled mode: the rooms of every instance, as the shared directory holds them.
    creations.take(clientAddress(c), directory ? await directory.count() : undefined);
    await next();
  }, limit, validate('json', CreateRoomBody), async (c) => {
    const { title } = c.req.valid('json');
    const id = newId();
    const tokens = Object.fromEntries(ROLES.map((r) => [r, newToken()])) as Record<Role, string>;
    const hashes = Object.fromEntries(ROLES.map((r) => [r, hashToken(tokens[r])])) as Record<Role, Buffer>;
    if (scaled) {
      // Scaled mode: the use is taken in the shared store (once across instances) before the room is
      // created in the shared directory, a separate call: a room that then fails to be stored costs one use.
      await requireRoomCreator(c, config, invitations, 'spend');
      await scaled.shared.rooms.create({ id, title, createdAt: Date.now() }, hashes, creations.checkRooms);
    } else {
      // The invitation's use is spent in the transaction that creates the room: both or neither.
      store.db.transaction(() => {
        requireRoomCreator(c, config, invitations, 'spend');
        store.rooms.create({ id, title, createdAt: Date.now() }, hashes, creations.checkRooms);
      })();
    }
    await (await rooms.load(id)).transact((doc) => {
      const settings = doc.getMap(RoomKey.settings);
      settings.set(SettingKey.title, title);
      settings.set(SettingKey.locked, false);
      settings.set(SettingKey.allowAnnotatorCapture, false);
    });
    const links = Object.fromEntries(ROLES.map((r) => [r, roomLink(base(c.req.url), id, tokens[r])]));
    return c.json({ id, title, tokens, links }, 201);
  });

  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const { role } = await authorize(c, deps, id, ROLES);
    const { doc } = await rooms.load(id);
    const title = roomTitle(doc, (directory ? await directory.get(id) : store.rooms.get(id))?.title ?? '');
    return c.json({ id, title, role, documents: await deps.content.documents.list(id), settings: doc.getMap(RoomKey.settings).toJSON() });
  });

  app.post('/:id/links/:role/rotate', async (c) => {
    const id = c.req.param('id');
    await authorize(c, deps, id, ['owner']);
    const parsed = RoleParam.safeParse(c.req.param('role'));
    if (!parsed.success) throw badRequest(`role must be one of ${ROLES.join(', ')}`);
    const role = parsed.data as Role;
    const token = newToken();
    const oldHash = directory ? await directory.tokenHash(id, role) : store.rooms.tokenHash(id, role);
    if (directory) await directory.replaceToken(id, role, hashToken(token));
    else store.rooms.replaceToken(id, role, hashToken(token));
    const closed = oldHash ? rooms.closeToken(id, oldHash.toString('hex'), CloseCode.tokenRevoked) : 0;
    return c.json({ role, token, link: roomLink(base(c.req.url), id, token), closedSockets: closed });
  });

  return app;
}
