import { afterAll, beforeAll } from 'vitest';
import { startCluster, type TestCluster } from './cluster';
import { startPostgres, type TestPostgres } from './postgres';
import { startRedis, type TestRedis } from './redis';

/** Seam instances in scaled mode: their PostgreSQL (one database), their Redis, and HAProxy in front. */
export interface ScaledCluster {
  readonly postgres: TestPostgres;
  readonly redis: TestRedis;
  readonly cluster: TestCluster;
  /** The database every instance serves from. */
  readonly databaseUrl: string;
  /** Stops the instances and HAProxy, then PostgreSQL and Redis. */
  close(): Promise<void>;
}

/**
 * Starts PostgreSQL and Redis, creates `database`, and starts `count` instances serving from them
 * (with `env` besides the two URLs) behind HAProxy. On failure whatever was started is stopped.
 */
export async function startScaledCluster(count: number, database: string, env: Record<string, string> = {}): Promise<ScaledCluster> {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const databaseUrl = await postgres.createDatabase(database);
    const cluster = await startCluster(count, { ...env, SEAM_DATABASE_URL: databaseUrl, SEAM_REDIS_URL: redis.url });
    return {
      postgres, redis, cluster, databaseUrl,
      close: async () => {
        await cluster.close();
        await Promise.all([postgres.close(), redis.close()]);
      },
    };
  } catch (err) {
    await Promise.all([postgres.close(), redis.close()]);
    throw err;
  }
}

/** What a test file reads of its scaled cluster: the parts, and instance `i`'s own address. */
export interface ScaledRig extends Omit<ScaledCluster, 'close'> {
  direct(i: number): { readonly url: string };
}

/**
 * {@link startScaledCluster} before the file's tests and stopped after; call it at the top of the
 * file and read the parts from hooks and tests (reading them before they started throws).
 */
export function useScaledCluster(count: number, database: string, env: Record<string, string> = {}): ScaledRig {
  let started: ScaledCluster | null = null;
  beforeAll(async () => {
    started = await startScaledCluster(count, database, env);
  });
  afterAll(async () => {
    await started?.close();
  });
  const get = (): ScaledCluster => {
    if (!started) throw new Error('the scaled cluster is not started yet: read it from a hook or a test');
    return started;
  };
  return {
    get postgres() {
      return get().postgres;
    },
    get redis() {
      return get().redis;
    },
    get cluster() {
      return get().cluster;
    },
    get databaseUrl() {
      return get().databaseUrl;
    },
    direct: (i) => ({ url: get().cluster.instances[i]!.server!.url }),
  };
}
