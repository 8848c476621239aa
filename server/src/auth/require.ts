import type { Context } from 'hono';
import type { Role } from '@seam/shared/model';
import { forbidden, notFound, unauthorized } from '../errors';
import type { Store } from '../store';
import { hashToken, tokenFrom } from './tokens';

/** Who a request is: its room role and (hex) token hash. */
export interface Grant {
  readonly role: Role;
  readonly tokenHash: string;
}

/**
 * Checks the request's token (Bearer header or `?token=`) against room `roomId`. No token, a
 * wrong token or a token of another room: 401 (so room existence is not revealed); a role not in
 * `roles`: 403.
 */
export function requireRole(c: Context, store: Store, roomId: string, roles: readonly Role[]): Grant {
  const token = tokenFrom(c.req.header('authorization'), c.req.query('token'));
  if (!token) throw unauthorized();
  const hash = hashToken(token);
  const grant = store.rooms.lookupToken(hash);
  if (!grant || grant.roomId !== roomId) throw unauthorized();
  if (!store.rooms.get(roomId)) throw notFound('no such room');
  if (!roles.includes(grant.role)) throw forbidden(`the ${grant.role} role may not do this`);
  return { role: grant.role, tokenHash: hash.toString('hex') };
}
