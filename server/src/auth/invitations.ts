import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ApiError, ErrorCode } from '../errors';
import { InvitationsStore, type InvitationRefusal, type InvitationRow } from '../store/invitations-store';
import type { Invitations as SharedInvitationStore } from '../store/shared-store';
import { hashToken } from './tokens';

/** Prefix of every invitation, so one is never mistaken for a room, runner or operator token. */
export const INVITATION_PREFIX = 'inv_';

/** What an invitation is minted with. */
export interface InvitationOptions {
  /** Rooms it may create; default 1. */
  readonly uses?: number;
  /** Milliseconds it stays valid; default: it does not expire. */
  readonly expiresInMs?: number;
  /** Who it is for, as the operator wants to remember it; never secret. */
  readonly note?: string;
}

/** A freshly minted invitation: its row, and the secret that is shown this once and never stored. */
export type MintedInvitation = InvitationRow & { readonly secret: string };

/** Why an invitation was refused, as the message the person holding it reads. */
const REFUSALS: Record<InvitationRefusal, readonly [ErrorCode, string]> = {
  unknown: [ErrorCode.invitationInvalid, 'this invitation code is not known here; check it was copied whole'],
  revoked: [ErrorCode.invitationRevoked, 'this invitation was revoked by the operator'],
  expired: [ErrorCode.invitationExpired, 'this invitation has expired; ask the operator for a new one'],
  used_up: [ErrorCode.invitationUsedUp, 'this invitation has been used up; ask the operator for a new one'],
};

/** A new invitation's secret, its hash and its row; throws `RangeError` for uses below 1 or a duration that is not positive. */
function mint(options: InvitationOptions, createdAt: number) {
  const uses = options.uses ?? 1;
  if (!Number.isInteger(uses) || uses < 1) throw new RangeError(`uses must be a whole number ≥ 1, got ${uses}`);
  const expiresIn = options.expiresInMs;
  if (expiresIn !== undefined && !(Number.isFinite(expiresIn) && expiresIn > 0)) throw new RangeError(`an invitation must expire after a positive time, got ${expiresIn} ms`);
  const secret = INVITATION_PREFIX + randomBytes(32).toString('base64url');
  const row = { id: randomBytes(6).toString('hex'), note: options.note ?? '', uses, createdAt, expiresAt: expiresIn === undefined ? null : createdAt + expiresIn };
  return { hash: hashToken(secret), row, secret };
}

/** Throws the named `ApiError` for an outcome other than `taken` (or `live`). */
function refuseUnless(outcome: InvitationRefusal | 'taken' | 'live'): void {
  if (outcome !== 'taken' && outcome !== 'live') throw new ApiError(...REFUSALS[outcome]);
}

/**
 * Invitations to create rooms, minted by the operator (`npm run -w @seam/server invite -- create`)
 * and spent one use per room created. Only their SHA-256 hashes are stored.
 */
export class Invitations {
  private readonly store: InvitationsStore;

  constructor(db: Database.Database, private readonly now: () => number = Date.now) {
    this.store = new InvitationsStore(db);
  }

  /** Mints an invitation. Throws `RangeError` for uses below 1 or a duration that is not positive. */
  create(options: InvitationOptions = {}): MintedInvitation {
    const { hash, row, secret } = mint(options, this.now());
    return { ...this.store.insert(hash, row), secret };
  }

  /** Every invitation ever minted, oldest first. */
  list(): InvitationRow[] {
    return this.store.list();
  }

  /** Revokes an invitation by id; false when there is no such live invitation. */
  revoke(id: string): boolean {
    return this.store.revoke(id, this.now());
  }

  /**
   * Spends one use of `secret`, atomically. Throws the named `ApiError` (`invitation_invalid`,
   * `invitation_revoked`, `invitation_expired`, `invitation_used_up`) when it cannot.
   */
  redeem(secret: string): void {
    refuseUnless(secret.startsWith(INVITATION_PREFIX) ? this.store.take(hashToken(secret), this.now()) : 'unknown');
  }

  /** Throws as `redeem` would if `secret` could not be spent now; spends nothing. */
  check(secret: string): void {
    refuseUnless(secret.startsWith(INVITATION_PREFIX) ? this.store.status(hashToken(secret), this.now()) : 'unknown');
  }
}

/**
 * `Invitations` over the shared store's (PostgreSQL in scaled mode), so that an invitation minted
 * once is honoured by every instance and each of its uses is taken once across all of them (the
 * store takes a use atomically). Answers as `Invitations` does, as promises.
 */
export class SharedInvitations {
  constructor(private readonly store: SharedInvitationStore, private readonly now: () => number = Date.now) {}

  /** Mints an invitation. Throws `RangeError` for uses below 1 or a duration that is not positive. */
  async create(options: InvitationOptions = {}): Promise<MintedInvitation> {
    const { hash, row, secret } = mint(options, this.now());
    return { ...(await this.store.insert(hash, row)), secret };
  }

  /** Every invitation ever minted, oldest first. */
  list(): Promise<InvitationRow[]> {
    return this.store.list();
  }

  /** Revokes an invitation by id; false when there is no such live invitation. */
  revoke(id: string): Promise<boolean> {
    return this.store.revoke(id, this.now());
  }

  /** Spends one use of `secret`, atomically across instances; throws as `Invitations.redeem` does. */
  async redeem(secret: string): Promise<void> {
    refuseUnless(secret.startsWith(INVITATION_PREFIX) ? await this.store.take(hashToken(secret), this.now()) : 'unknown');
  }

  /** Throws as `redeem` would if `secret` could not be spent now; spends nothing. */
  async check(secret: string): Promise<void> {
    refuseUnless(secret.startsWith(INVITATION_PREFIX) ? await this.store.status(hashToken(secret), this.now()) : 'unknown');
  }
}
