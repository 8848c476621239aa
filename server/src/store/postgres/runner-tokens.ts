import type pg from 'pg';
import { checkRunnerName, fromRow, hashToken, newRunnerToken, RUNNER_TOKEN_PREFIX, TOKEN_COLUMNS, type RunnerTokenInfo, type TokenRow } from '../../jobs/runner-tokens';
import type { RunnerTokenStore } from '../shared-store';
import { query, transaction, type Queryable } from './pool';

/** Arbitrary first key of the advisory locks that make rotations of one runner name wait for each other. */
const ROTATE_LOCK = 7_385_002;

/**
 * Runner tokens in PostgreSQL (table `runner_tokens`), with the embedded `RunnerTokens`' semantics
 * and its minting: only the hash of a secret is stored. A rotation revokes every live token of
 * the name and mints one under an advisory lock on the name, so that two instances rotating at
 * once leave one live token, not two.
 */
export function postgresRunnerTokens(pool: pg.Pool, now: () => number = Date.now): RunnerTokenStore {
  const mint = async (db: Queryable, operation: string, name: string, serverMinted: boolean): Promise<RunnerTokenInfo & { readonly token: string }> => {
    const { token, id, hash } = newRunnerToken();
    const createdAt = now();
    await query(db, operation, 'INSERT INTO runner_tokens (id, name, hash, created_at, server_minted) VALUES ($1, $2, $3, $4, $5)', [id, name, hash, createdAt, serverMinted ? 1 : 0]);
    return { id, name, createdAt, revokedAt: null, serverMinted, token };
  };
  return {
    create: async (name) => {
      checkRunnerName(name);
      return mint(pool, 'runnerTokens.create', name, false);
    },
    rotate: (name) => transaction(pool, 'runnerTokens.rotate', async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ROTATE_LOCK, name]);
      await c.query('UPDATE runner_tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL', [now(), name]);
      return mint(c, 'runnerTokens.rotate', name, true);
    }),
    list: async () =>
      (await query<TokenRow>(pool, 'runnerTokens.list', `SELECT ${TOKEN_COLUMNS} FROM runner_tokens ORDER BY created_at, id COLLATE "C"`)).rows.map(fromRow),
    revoke: async (id) =>
      (await query(pool, 'runnerTokens.revoke', 'UPDATE runner_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now(), id])).rowCount === 1,
    verify: async (token) => {
      if (!token.startsWith(RUNNER_TOKEN_PREFIX)) return null;
      const r = (await query<TokenRow>(pool, 'runnerTokens.verify', `SELECT ${TOKEN_COLUMNS} FROM runner_tokens WHERE hash = $1`, [hashToken(token)])).rows[0];
      return r && r.revoked_at === null ? fromRow(r) : null;
    },
    isLive: async (id) =>
      (await query(pool, 'runnerTokens.isLive', 'SELECT 1 FROM runner_tokens WHERE id = $1 AND revoked_at IS NULL', [id])).rowCount === 1,
  };
}
