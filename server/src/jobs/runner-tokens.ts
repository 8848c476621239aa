import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { RUNNER_LIMITS } from '@seam/shared/protocol';
import { LOCAL_RUNNER, migrateJobs } from './schema';

/** A runner token as listed: never the secret itself, which exists only in the answer to `create`. */
export interface RunnerTokenInfo {
  readonly id: string;
  /** The one runner name this token may register as, fixed when it was minted. */
  readonly name: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /** Minted by the server for its own runner (`rotate`), not by the operator's `create`. */
  readonly serverMinted: boolean;
}

/** A `runner_tokens` row as both backends read it (`server_minted` is 0 or 1). */
export interface TokenRow { id: string; name: string; created_at: number; revoked_at: number | null; server_minted: number }

/** The columns of a token as listed. */
export const TOKEN_COLUMNS = 'id, name, created_at, revoked_at, server_minted';
const COLUMNS = TOKEN_COLUMNS;

/** A stored row as listed. */
export function fromRow(r: TokenRow): RunnerTokenInfo {
  return { id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at, serverMinted: r.server_minted === 1 };
}

/** A runner name no token may be minted for: empty, too long, or the reserved `local`. */
export class RunnerNameError extends Error {
  override name = 'RunnerNameError';
}

/**
 * Why a runner holding `token` may not register as `name`, or null when it may: a token registers
 * only as the name it was minted for, and only the server's own token as `local`.
 */
export function registrationProblem(token: RunnerTokenInfo, name: string): string | null {
  if (name === LOCAL_RUNNER && !token.serverMinted) return `the runner name "${LOCAL_RUNNER}" is reserved for the server's own local runner`;
  if (name !== token.name) return `this runner token is bound to the runner name "${token.name}"; start the runner with --name ${token.name}`;
  return null;
}

/** Prefix of every runner token, so one is never mistaken for a room token. */
export const RUNNER_TOKEN_PREFIX = 'srn_';

/** The stored form of a runner token: its SHA-256 in hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Throws `RunnerNameError` unless an operator may mint a token for `name`: 1 to `RUNNER_LIMITS.name` characters, not `local`. */
export function checkRunnerName(name: string): void {
  if (name.length === 0 || name.length > RUNNER_LIMITS.name) throw new RunnerNameError(`a runner name has 1 to ${RUNNER_LIMITS.name} characters`);
  if (name === LOCAL_RUNNER) throw new RunnerNameError(`the runner name "${LOCAL_RUNNER}" is reserved for the server's own local runner`);
}

/** A new token: the secret (shown once), its id, and the hash that is stored. */
export function newRunnerToken(): { readonly token: string; readonly id: string; readonly hash: string } {
  const token = RUNNER_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, id: randomBytes(8).toString('hex'), hash: hashToken(token) };
}

/**
 * Runner tokens, distinct from room tokens: created and revoked by whoever operates the server (the
 * `runner-token` CLI, or `npm start` for its local runner), stored as sha256 hashes.
 */
export class RunnerTokens {
  constructor(private readonly db: Database.Database, private readonly now: () => number = Date.now) {
    migrateJobs(db, now());
  }

  /**
   * Creates the operator's token for the runner named `name`, the only name it may register as; the
   * returned `token` is shown once and not stored. Throws `RunnerNameError` for an empty or
   * over-long name and for `local`, which only the server's own runner may use.
   */
  create(name: string): RunnerTokenInfo & { readonly token: string } {
    checkRunnerName(name);
    return this.mint(name, false);
  }

  private mint(name: string, serverMinted: boolean): RunnerTokenInfo & { readonly token: string } {
    const { token, id, hash } = newRunnerToken();
    const createdAt = this.now();
    this.db.prepare('INSERT INTO runner_tokens (id, name, hash, created_at, server_minted) VALUES (?, ?, ?, ?, ?)')
      .run(id, name, hash, createdAt, serverMinted ? 1 : 0);
    return { id, name, createdAt, revokedAt: null, serverMinted, token };
  }

  /**
   * The server's own token for its runner `name` (`local` for `npm start`'s): revokes every live
   * token of that name and mints a new one, renewed at each start.
   */
  rotate(name: string): RunnerTokenInfo & { readonly token: string } {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(this.now(), name);
      return this.mint(name, true);
    })();
  }

  /** Every token ever created, newest last, revoked ones included. */
  list(): RunnerTokenInfo[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM runner_tokens ORDER BY created_at, id`).all() as TokenRow[]).map(fromRow);
  }

  /** Revokes a token by id; false when there is no such live token. */
  revoke(id: string): boolean {
    return this.db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now(), id).changes === 1;
  }

  /** The live token matching `token`, or null (unknown or revoked). */
  verify(token: string): RunnerTokenInfo | null {
    if (!token.startsWith(RUNNER_TOKEN_PREFIX)) return null;
    const r = this.db.prepare(`SELECT ${COLUMNS} FROM runner_tokens WHERE hash = ?`).get(hashToken(token)) as TokenRow | undefined;
    return r && r.revoked_at === null ? fromRow(r) : null;
  }

  /** Whether the token with this id is still live (checked on every runner frame, so revoking bites at once). */
  isLive(id: string): boolean {
    const r = this.db.prepare('SELECT revoked_at FROM runner_tokens WHERE id = ?').get(id) as { revoked_at: number | null } | undefined;
    return r !== undefined && r.revoked_at === null;
  }
}
