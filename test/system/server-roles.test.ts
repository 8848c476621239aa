import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations } from '@seam/shared/model';
import { CloseCode, decodeAck, encodeSyncMessage, MessageType } from '@seam/shared/protocol';
import { connectClient, createRoom, note, messageType, rawSocket, waitFor, type CreatedRoom } from '../helpers';
import { startTarget, TargetKind, type SyncTarget } from '../helpers/scale/target';

/**
 * Every case runs on both targets. In scaled mode the attacker (`a`, instance 1) and the victim
 * and the fresh views (`v`, instance 0) are on different instances, so what is refused is refused
 * at the attacker's instance and never reaches the other, and a rotated token closes its sockets
 * on every instance. The suite is short (a few seconds), so all of it runs on both.
 */
describe.each(Object.values(TargetKind))('%s', (kind) => {
  let t: SyncTarget;
  /** The victim's (and fresh views') instance, and the attacker's. */
  const victim = () => t.at(0);
  const attacker = () => t.at(1);
  beforeAll(async () => {
    t = await startTarget(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** What a fresh client sees of the room once synced. */
  async function freshView(room: CreatedRoom): Promise<Y.Doc> {
    const c = connectClient(victim(), room.id, room.tokens.owner);
    await c.synced();
    const doc = new Y.Doc();
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.doc));
    c.destroy();
    return doc;
  }

  /** The updates refused at the attacker's instance. */
  async function refusedCount(): Promise<number> {
    const text = await (await fetch(`${attacker().url}/metrics`)).text();
    return [...text.matchAll(/^seam_updates_refused_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  }

  describe('roles on the sync socket', () => {
    it('never lands a viewer write from the stock client, and still lets the viewer sync', async () => {
      const room = await createRoom(t);
      const before = await refusedCount();
      const viewer = connectClient(attacker(), room.id, room.tokens.viewer, { ack: true });
      await viewer.synced();
      addAnnotation(viewer.doc, note('viewer-note'));
      await waitFor(() => viewer.acks.some((a) => a.seq >= 2), 'the server to process the viewer update');
      expect(viewer.acks.at(-1)?.entries).toEqual([]);
      expect(readAnnotations(await freshView(room))).toEqual([]);
      const res = await fetch(`${t.url}/api/rooms/${room.id}/annotations?token=${room.tokens.viewer}`);
      expect(((await res.json()) as { annotations: unknown[] }).annotations).toEqual([]);
      expect(await refusedCount()).toBeGreaterThan(before);
      viewer.destroy();
    });

    it('refuses a viewer update forced from a raw socket without relaying it', async () => {
      const room = await createRoom(t);
      const watcher = connectClient(victim(), room.id, room.tokens.annotator);
      await watcher.synced();
      const raw = rawSocket(attacker(), room.id, `token=${room.tokens.viewer}&ack=1`);
      await raw.opened();
      const forged = new Y.Doc();
      addAnnotation(forged, note('forged'));
      raw.ws.send(encodeSyncMessage(2, Y.encodeStateAsUpdate(forged)));
      await waitFor(() => raw.received.some((f) => messageType(f) === MessageType.ack), 'the ack for the forced update');
      const ack = raw.received.map((f) => (messageType(f) === MessageType.ack ? decodeAck(f) : undefined)).find(Boolean);
      expect(ack).toEqual({ seq: 1, entries: [] });
      addAnnotation(watcher.doc, note('legit'));
      const view = await (async () => {
        await waitFor(async () => readAnnotations(await freshView(room)).length > 0, 'the legit annotation');
        return freshView(room);
      })();
      expect(readAnnotations(view).map((a) => a.id)).toEqual(['legit']);
      expect(readAnnotations(watcher.doc).map((a) => a.id)).toEqual(['legit']);
      raw.ws.close();
      watcher.destroy();
    });

    it('refuses client writes to server-only state, even from the owner', async () => {
      const room = await createRoom(t);
      const owner = connectClient(attacker(), room.id, room.tokens.owner, { ack: true });
      await owner.synced();
      owner.doc.getMap('documents').set('forged', { id: 'forged', title: 'not a dump' });
      await waitFor(() => owner.acks.some((a) => a.seq >= 2), 'the server to process it');
      expect((await freshView(room)).getMap('documents').has('forged')).toBe(false);
      owner.destroy();
    });

    it('refuses annotator writes while the owner has locked the room', async () => {
      const room = await createRoom(t);
      const owner = connectClient(victim(), room.id, room.tokens.owner, { ack: true });
      const annotator = connectClient(attacker(), room.id, room.tokens.annotator, { ack: true });
      await Promise.all([owner.synced(), annotator.synced()]);
      owner.doc.getMap('settings').set('locked', true);
      await waitFor(() => annotator.doc.getMap('settings').get('locked') === true, 'the lock to reach the annotator');
      addAnnotation(annotator.doc, note('while-locked'));
      await waitFor(() => annotator.acks.some((a) => a.seq >= 2), 'the server to process it');
      expect(readAnnotations(await freshView(room))).toEqual([]);
      const res = await fetch(`${t.url}/api/rooms/${room.id}/annotations`, {
        method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ docId: 'x', from: 0, to: 0, kind: 'note', body: '' }),
      });
      expect(res.status).toBe(403);
      owner.destroy();
      annotator.destroy();
    });
  });

  describe('tokens on the sync socket', () => {
    it.each([
      ['no token', ''],
      ['a wrong token', 'token=not-a-token'],
    ])('closes a socket with %s as unauthorized before sending any data', async (_, query) => {
      const room = await createRoom(t);
      const raw = rawSocket(attacker(), room.id, query);
      expect((await raw.closed).code).toBe(CloseCode.unauthorized);
      expect(raw.received).toEqual([]);
    });

    it('closes a socket whose token belongs to another room', async () => {
      const [a, b] = [await createRoom(t), await createRoom(t)];
      const raw = rawSocket(attacker(), a.id, `token=${b.tokens.owner}`);
      expect((await raw.closed).code).toBe(CloseCode.unauthorized);
      expect(raw.received).toEqual([]);
    });

    it('disconnects the sockets of a rotated link on every instance and keeps the others', async () => {
      const room = await createRoom(t);
      // The rotation goes through the victim's instance; the revoked token has a socket on each.
      const here = connectClient(victim(), room.id, room.tokens.annotator);
      const there = connectClient(attacker(), room.id, room.tokens.annotator);
      const viewer = connectClient(attacker(), room.id, room.tokens.viewer);
      await Promise.all([here.synced(), there.synced(), viewer.synced()]);
      const denied = await fetch(`${victim().url}/api/rooms/${room.id}/links/annotator/rotate`, { method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}` } });
      expect(denied.status).toBe(403);
      const res = await fetch(`${victim().url}/api/rooms/${room.id}/links/annotator/rotate`, { method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}` } });
      expect(res.status).toBe(200);
      const rotated = (await res.json()) as { token: string; link: string };
      expect(rotated.link).toContain(`/r/${room.id}#token=${rotated.token}`);
      await waitFor(() => here.closes.includes(CloseCode.tokenRevoked) && there.closes.includes(CloseCode.tokenRevoked), 'the revoked sockets to close');
      expect(viewer.closes).toEqual([]);
      for (const at of [victim(), attacker()]) {
        expect((await fetch(`${at.url}/api/rooms/${room.id}?token=${room.tokens.annotator}`)).status).toBe(401);
        expect((await fetch(`${at.url}/api/rooms/${room.id}?token=${rotated.token}`)).status).toBe(200);
      }
      here.destroy();
      there.destroy();
      const again = connectClient(attacker(), room.id, rotated.token);
      await again.synced();
      again.destroy();
      viewer.destroy();
    });
  });
});
