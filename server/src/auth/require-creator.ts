import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Config } from '../config';
import { ApiError, ErrorCode } from '../errors';
import { INVITATION_PREFIX, type Invitations, type SharedInvitations } from './invitations';
import { RoomCreation } from './room-policy';
import { hashToken, tokenFrom } from './tokens';

/** Whether `given` is the operator token, compared by hash in constant time. */
function isOperator(given: string, operatorToken: string | undefined): boolean {
  return operatorToken !== undefined && timingSafeEqual(hashToken(given), hashToken(operatorToken));
}

/**
 * Lets a room be created, or throws the named `ApiError`. Under `open` anyone may; under `invite`
 * the request's `Authorization: Bearer` must be the operator token (nothing is spent) or a live
 * invitation. `spend`: take one use of it (do so in the transaction that creates the room);
 * `check`: take nothing, to refuse a request before it counts against any quota. The credential
 * is read from the header only, never from the query string, which logs and proxies keep.
 * With `SharedInvitations` (scaled mode) the invitation's answer is a promise to await.
 */
export function requireRoomCreator(c: Context, config: Pick<Config, 'roomCreation' | 'operatorToken'>, invitations: Invitations | SharedInvitations, use: 'check' | 'spend'): void | Promise<void> {
  if (config.roomCreation === RoomCreation.open) return;
  const header = c.req.header('authorization') ?? '';
  if (/^(Bearer\s*)?$/i.test(header.trim())) throw new ApiError(ErrorCode.invitationRequired, 'creating a room on this server needs an invitation; ask its operator for one');
  const credential = tokenFrom(header, undefined);
  if (credential && isOperator(credential, config.operatorToken)) return;
  if (!credential?.startsWith(INVITATION_PREFIX)) throw new ApiError(ErrorCode.invitationInvalid, 'this is neither an invitation nor the operator token');
  return use === 'spend' ? invitations.redeem(credential) : invitations.check(credential);
}
