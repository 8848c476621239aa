import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where Debian's `postgresql-NN` packages put their server programs; PATH holds only the wrappers, if anything. */
const POSTGRES_LIB = '/usr/lib/postgresql';

/**
 * The `bin` folder of the newest PostgreSQL installed from Debian's packages (the one with both
 * `initdb` and `postgres`), or undefined when none is. Not taken from PATH: Debian puts the
 * server programs under `/usr/lib/postgresql/NN/bin`, and a `pg_ctl` on PATH may be a wrapper or
 * another version.
 */
export function postgresBinDir(root: string = POSTGRES_LIB): string | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

/** Debian's Redis server and HAProxy, where their packages install them. */
export const REDIS_SERVER = '/usr/bin/redis-server';
export const HAPROXY = '/usr/sbin/haproxy';

/**
 * The system user the test PostgreSQL runs as when the tests run as root (PostgreSQL refuses to
 * run as root). Created by `test/provision.ts` and `.ci/run`.
 */
export const POSTGRES_USER = 'seam-db';
