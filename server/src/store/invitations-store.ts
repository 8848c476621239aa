import type Database from 'better-sqlite3';

/** An invitation as stored and listed: never its secret, of which only the SHA-256 hash is kept. */
export interface InvitationRow {
  readonly id: string;
  readonly note: string;
  /** How many rooms it may still create. */
  readonly usesLeft: number;
  /** How many it could create when minted. */
  readonly uses: number;
  readonly createdAt: number;
  /** Milliseconds since the epoch after which it is refused; null: it does not expire. */
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

/** Why an invitation cannot be used. */
export type InvitationRefusal = 'unknown' | 'revoked' | 'expired' | 'used_up';
/** What taking one use of an invitation came to: `taken`, or why it was refused. */
export type TakeOutcome = 'taken' | InvitationRefusal;

/** An `invitations` row as both backends read it (its hash aside). */
export interface InvitationDbRow { id: string; note: string; uses_left: number; uses: number; created_at: number; expires_at: number | null; revoked_at: number | null }
type Row = InvitationDbRow;

/** Whether the invitation in row `r` (undefined: none has that hash) could be used at time `now`. */
export function invitationStatus(r: InvitationDbRow | undefined, now: number): 'live' | InvitationRefusal {
  if (!r) return 'unknown';
  if (r.revoked_at !== null) return 'revoked';
  if (r.expires_at !== null && r.expires_at <= now) return 'expired';
  return r.uses_left > 0 ? 'live' : 'used_up';
}

/** A stored row as listed. */
export const toInvitation = (r: Row): InvitationRow => ({
  id: r.id, note: r.note, usesLeft: r.uses_left, uses: r.uses, createdAt: r.created_at, expiresAt: r.expires_at, revokedAt: r.revoked_at,
});

/**
 * Invitations to create rooms, in the server's SQLite database (the table is created when
 * missing, so data directories from before invitations need nothing else). A use is taken by one
 * conditional `UPDATE`, so that two requests, or two processes, can never take the last one twice.
 */
export class InvitationsStore {
  private readonly takeOne;
  private readonly byHash;

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS invitations (
        id TEXT PRIMARY KEY,
        hash BLOB NOT NULL UNIQUE,
        note TEXT NOT NULL,
        uses INTEGER NOT NULL,
        uses_left INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      );
    `);
    this.takeOne = db.prepare<[Buffer, number]>(
      'UPDATE invitations SET uses_left = uses_left - 1 WHERE hash = ? AND uses_left > 0 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
    );
    this.byHash = db.prepare<[Buffer], Row>('SELECT * FROM invitations WHERE hash = ?');
  }

  /** Stores a new invitation under `hash`. */
  insert(hash: Buffer, row: Omit<InvitationRow, 'usesLeft' | 'revokedAt'>): InvitationRow {
    this.db.prepare('INSERT INTO invitations (id, hash, note, uses, uses_left, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(row.id, hash, row.note, row.uses, row.uses, row.createdAt, row.expiresAt);
    return { ...row, usesLeft: row.uses, revokedAt: null };
  }

  /** Every invitation ever minted, oldest first, spent and revoked ones included. */
  list(): InvitationRow[] {
    return (this.db.prepare('SELECT * FROM invitations ORDER BY created_at, id').all() as Row[]).map(toInvitation);
  }

  /** Revokes an invitation by id; false when there is no such invitation or it is already revoked. */
  revoke(id: string, at: number): boolean {
    return this.db.prepare('UPDATE invitations SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
  }

  /** Takes one use of the invitation with this hash at time `now`, atomically; otherwise says why not. */
  take(hash: Buffer, now: number): TakeOutcome {
    if (this.takeOne.run(hash, now).changes === 1) return 'taken';
    const status = this.status(hash, now);
    // Only another writer adding uses between the two statements could make it live again.
    return status === 'live' ? 'used_up' : status;
  }

  /** Whether the invitation with this hash could be used at time `now`, taking nothing. */
  status(hash: Buffer, now: number): 'live' | InvitationRefusal {
    return invitationStatus(this.byHash.get(hash), now);
  }
}
