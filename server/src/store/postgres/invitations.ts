import type pg from 'pg';
import { invitationStatus, toInvitation, type InvitationDbRow } from '../invitations-store';
import type { Invitations } from '../shared-store';
import { query } from './pool';

/**
 * Invitations in PostgreSQL (table `invitations`), with the embedded store's semantics: a use is
 * taken by one conditional UPDATE, so two instances can never take the last use twice.
 */
export function postgresInvitations(pool: pg.Pool): Invitations {
  const status = async (hash: Buffer, now: number) =>
    invitationStatus((await query<InvitationDbRow>(pool, 'invitations.status', 'SELECT * FROM invitations WHERE hash = $1', [hash])).rows[0], now);
  return {
    insert: async (hash, row) => {
      await query(pool, 'invitations.insert', 'INSERT INTO invitations (id, hash, note, uses, uses_left, created_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5, $6)',
        [row.id, hash, row.note, row.uses, row.createdAt, row.expiresAt]);
      return { ...row, usesLeft: row.uses, revokedAt: null };
    },
    list: async () => (await query<InvitationDbRow>(pool, 'invitations.list', 'SELECT * FROM invitations ORDER BY created_at, id COLLATE "C"')).rows.map(toInvitation),
    revoke: async (id, at) =>
      (await query(pool, 'invitations.revoke', 'UPDATE invitations SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id])).rowCount === 1,
    take: async (hash, now) => {
      const taken = await query(pool, 'invitations.take',
        'UPDATE invitations SET uses_left = uses_left - 1 WHERE hash = $1 AND uses_left > 0 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)', [hash, now]);
      if (taken.rowCount === 1) return 'taken';
      const s = await status(hash, now);
      // Only another writer adding uses between the two statements could make it live again.
      return s === 'live' ? 'used_up' : s;
    },
    status,
  };
}
