import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { migrateJobs } from './schema';

/** A runner token as listed: never the secret itself, which exists only in the answer to `create`. */
export interface RunnerTokenInfo {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

interface TokenRow { id: string; name: string; created_at: number; revoked_at: number | null }

/** Prefix of every runner token, so one is never mistaken for a room token. */
export const RUNNER_TOKEN_PREFIX = 'srn_';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Runner tokens, distinct from room tokens: created and revoked by whoever operates the server (the
 * `runner-token` CLI, or `npm start` for its local runner), stored as sha256 hashes.
 */
export class RunnerTokens {
  constructor(private readonly db: Database.Database, private readonly now: () => number = Date.now) {
    migrateJobs(db);
  }

  /** Creates a token for a runner named `name`; the returned `token` is shown once and not stored. */
  create(name: string): RunnerTokenInfo & { readonly token: string } {
    const token = RUNNER_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const id = randomBytes(8).toString('hex');
    const createdAt = this.now();
    this.db.prepare('INSERT INTO runner_tokens (id, name, hash, created_at) VALUES (?, ?, ?, ?)')
      .run(id, name, hashToken(token), createdAt);
    return { id, name, createdAt, revokedAt: null, token };
  }

  /** Revokes every live token named `name` and creates a new one (the local runner's token, renewed at each start). */
  rotate(name: string): RunnerTokenInfo & { readonly token: string } {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(this.now(), name);
      return this.create(name);
    })();
  }

  /** Every token ever created, newest last, revoked ones included. */
  list(): RunnerTokenInfo[] {
    const rows = this.db.prepare('SELECT id, name, created_at, revoked_at FROM runner_tokens ORDER BY created_at, id').all() as TokenRow[];
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  /** Revokes a token by id; false when there is no such live token. */
  revoke(id: string): boolean {
    return this.db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now(), id).changes === 1;
  }

  /** The live token matching `token`, or null (unknown or revoked). */
  verify(token: string): RunnerTokenInfo | null {
    if (!token.startsWith(RUNNER_TOKEN_PREFIX)) return null;
    const r = this.db.prepare('SELECT id, name, created_at, revoked_at FROM runner_tokens WHERE hash = ?').get(hashToken(token)) as TokenRow | undefined;
    if (!r || r.revoked_at !== null) return null;
    return { id: r.id, name: r.name, createdAt: r.created_at, revokedAt: null };
  }

  /** Whether the token with this id is still live (checked on every runner frame, so revoking bites at once). */
  isLive(id: string): boolean {
    const r = this.db.prepare('SELECT revoked_at FROM runner_tokens WHERE id = ?').get(id) as { revoked_at: number | null } | undefined;
    return r !== undefined && r.revoked_at === null;
  }
}
