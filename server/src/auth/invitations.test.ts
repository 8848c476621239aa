import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../errors';
import { Invitations } from './invitations';

let dir: string;
let db: Database.Database;
let clock: number;
let invitations: Invitations;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-inv-'));
  db = new Database(join(dir, 'seam.db'));
  clock = 1_000_000;
  invitations = new Invitations(db, () => clock);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The code of the `ApiError` `redeem` throws, or `spent` when it took a use. */
function redeem(secret: string): string {
  try {
    invitations.redeem(secret);
    return 'spent';
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}

describe('invitations', () => {
  it('mints a secret shown once, stores only its hash, and lists it without the secret', () => {
    const inv = invitations.create({ uses: 3, note: 'class A', expiresInMs: 60_000 });
    expect(inv.secret).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
    const dump = JSON.stringify(db.prepare('SELECT * FROM invitations').all(), (_, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64url') : v));
    expect(dump).not.toContain(inv.secret.slice(4));
    expect(invitations.list()).toEqual([{ id: inv.id, note: 'class A', uses: 3, usesLeft: 3, createdAt: clock, expiresAt: clock + 60_000, revokedAt: null }]);
  });

  it('spends one use per redeem until used up', () => {
    const { secret } = invitations.create({ uses: 2 });
    expect([redeem(secret), redeem(secret), redeem(secret)]).toEqual(['spent', 'spent', 'invitation_used_up']);
    expect(invitations.list()[0]?.usesLeft).toBe(0);
  });

  it('checks an invitation without spending it, naming the refusal as redeem would', () => {
    const { secret, id } = invitations.create({ uses: 1, expiresInMs: 1000 });
    expect(() => invitations.check(secret)).not.toThrow();
    expect(() => invitations.check('inv_nope')).toThrow(expect.objectContaining({ code: 'invitation_invalid' }));
    expect(invitations.list()[0]?.usesLeft).toBe(1);
    expect(redeem(secret)).toBe('spent');
    expect(() => invitations.check(secret)).toThrow(expect.objectContaining({ code: 'invitation_used_up' }));
    clock += 1000;
    expect(() => invitations.check(secret)).toThrow(expect.objectContaining({ code: 'invitation_expired' }));
    invitations.revoke(id);
    expect(() => invitations.check(secret)).toThrow(expect.objectContaining({ code: 'invitation_revoked' }));
  });

  it('refuses an expired invitation from its expiry on, and keeps its uses', () => {
    const { secret } = invitations.create({ uses: 2, expiresInMs: 1000 });
    clock += 999;
    expect(redeem(secret)).toBe('spent');
    clock += 1;
    expect(redeem(secret)).toBe('invitation_expired');
    expect(invitations.list()[0]?.usesLeft).toBe(1);
  });

  it('refuses a revoked invitation; revoking twice or an unknown id says false', () => {
    const { secret, id } = invitations.create({ uses: 5 });
    expect(invitations.revoke(id)).toBe(true);
    expect(invitations.revoke(id)).toBe(false);
    expect(invitations.revoke('nope')).toBe(false);
    expect(redeem(secret)).toBe('invitation_revoked');
    expect(invitations.list()[0]?.revokedAt).toBe(clock);
  });

  it('refuses an unknown invitation, a truncated one and a string without the prefix', () => {
    const { secret } = invitations.create();
    for (const s of ['inv_unknown', secret.slice(0, -1), secret.slice(4)]) expect(redeem(s)).toBe('invitation_invalid');
    expect(redeem(secret)).toBe('spent');
  });

  it('names the problem with uses or a duration that cannot be used', () => {
    expect(() => invitations.create({ uses: 0 })).toThrow(/uses must be a whole number ≥ 1/);
    expect(() => invitations.create({ uses: 1.5 })).toThrow(RangeError);
    expect(() => invitations.create({ expiresInMs: 0 })).toThrow(/positive time/);
    expect(invitations.list()).toEqual([]);
  });

  it('cannot spend the last use twice from two connections to the same database', () => {
    const { secret } = invitations.create({ uses: 1 });
    const other = new Database(join(dir, 'seam.db'));
    try {
      const second = new Invitations(other, () => clock);
      const outcomes = [redeem(secret)];
      try {
        second.redeem(secret);
        outcomes.push('spent');
      } catch (e) {
        outcomes.push((e as ApiError).code);
      }
      expect(outcomes).toEqual(['spent', 'invitation_used_up']);
    } finally {
      other.close();
    }
  });
});
