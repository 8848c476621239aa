import type { Context } from 'hono';
import type { Role } from '@seam/shared/model';
import { forbidden, notFound, unauthorized } from '../errors';
import type { Store } from '../store';
import type { RoomDirectory } from '../store/shared-store';
import { hashToken, tokenFrom } from './tokens';

/** Who a request is: its room role and (hex) token hash. */
export interface Grant {
  readonly role: Role;
  readonly tokenHash: string;
}

/** The request's token, hashed; 401 without one. */
function tokenHashOf(c: Context): Buffer {
  const token = tokenFrom(c.req.header('authorization'), c.req.query('token'));
  if (!token) throw unauthorized();
  return hashToken(token);
}

/** The checks of a looked-up token against `roomId` and `roles`, in the order the answers are given. */
function grantOf(hash: Buffer, grant: { roomId: string; role: Role } | undefined, roomId: string, exists: () => boolean, roles: readonly Role[]): Grant {
  if (!grant || grant.roomId !== roomId) throw unauthorized();
  if (!exists()) throw notFound('no such room');
  if (!roles.includes(grant.role)) throw forbidden(`the ${grant.role} role may not do this`);
  return { role: grant.role, tokenHash: hash.toString('hex') };
}

/**
 * Checks the request's token (Bearer header or `?token=`) against room `roomId`. No token, a
 * wrong token or a token of another room: 401 (so room existence is not revealed); a role not in
 * `roles`: 403.
 */
export function requireRole(c: Context, store: Store, roomId: string, roles: readonly Role[]): Grant {
  const hash = tokenHashOf(c);
  return grantOf(hash, store.rooms.lookupToken(hash), roomId, () => store.rooms.get(roomId) !== undefined, roles);
}

/**
 * `requireRole` through the room directory every instance shares (`directory`, PostgreSQL in
 * scaled mode), so that a room created on one instance is served by every other. Without a
 * directory (embedded mode) it is `requireRole` on the embedded store, answered at once.
 */
export async function authorize(c: Context, deps: { readonly store: Store; readonly directory?: RoomDirectory | undefined }, roomId: string, roles: readonly Role[]): Promise<Grant> {
  const { directory } = deps;
  if (!directory) return requireRole(c, deps.store, roomId, roles);
  const hash = tokenHashOf(c);
  const grant = await directory.lookupToken(hash);
  const exists = grant?.roomId === roomId && (await directory.get(roomId)) !== undefined;
  return grantOf(hash, grant, roomId, () => exists, roles);
}
