import type { LiveRunner, LiveRunners } from '../../jobs/live-runners';
import { openPool, query } from './pool';

interface LiveRunnerRow {
  runner_id: string; instance_id: string; name: string; capabilities: string; connected_at: number;
}

/**
 * The live runners of every instance in PostgreSQL (table `live_runners`, migration 8), on a pool
 * of its own of at most `max` connections to `url`. Expired entries are removed as they are listed.
 * Fails with `StoreUnavailableError` when PostgreSQL cannot be reached.
 */
export function postgresRunnerRegistry(url: string, opts: { max?: number; now?: () => number } = {}): LiveRunners {
  const pool = openPool(url, opts.max ?? 2);
  const now = opts.now ?? Date.now;
  const values = (session: string, r: LiveRunner, leaseMs: number) =>
    [r.id, r.instanceId, session, r.name, JSON.stringify(r.capabilities), r.connectedAt, now() + leaseMs];
  return {
    put: async (session, runner, leaseMs) => {
      await query(pool, 'runners.put', `INSERT INTO live_runners (runner_id, instance_id, session, name, capabilities, connected_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (runner_id) DO UPDATE SET instance_id = $2, session = $3, name = $4, capabilities = $5, connected_at = $6, expires_at = $7`,
      values(session, runner, leaseMs));
    },
    renew: async (session, runner, leaseMs) => {
      await query(pool, 'runners.renew', `INSERT INTO live_runners (runner_id, instance_id, session, name, capabilities, connected_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (runner_id) DO UPDATE SET expires_at = $7 WHERE live_runners.session = $3`,
      values(session, runner, leaseMs));
    },
    drop: async (runnerId, session) => {
      await query(pool, 'runners.drop', 'DELETE FROM live_runners WHERE runner_id = $1 AND session = $2', [runnerId, session]);
    },
    list: async () => {
      const t = now();
      await query(pool, 'runners.list', 'DELETE FROM live_runners WHERE expires_at <= $1', [t]);
      const rows = (await query<LiveRunnerRow>(pool, 'runners.list', `SELECT runner_id, instance_id, name, capabilities, connected_at FROM live_runners
        WHERE expires_at > $1 ORDER BY connected_at, runner_id`, [t])).rows;
      return rows.map((r) => ({
        id: r.runner_id, instanceId: r.instance_id, name: r.name, capabilities: JSON.parse(r.capabilities) as LiveRunner['capabilities'], connectedAt: r.connected_at,
      }));
    },
    close: () => pool.end(),
  };
}
