import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_USER, postgresBinDir } from './binaries';
import { spawnDaemon, waitReady, type Daemon, type RunAs } from './daemon';
import { freePort } from './free-port';

/** A PostgreSQL server a test started, in a temporary directory of its own. */
export interface TestPostgres {
  /** `postgres://seam@127.0.0.1:PORT/postgres`: the database that always exists. */
  readonly url: string;
  readonly port: number;
  /** The temporary directory: `data/` (the cluster) and the unix socket. */
  readonly dir: string;
  /** Creates an empty database and returns its URL (one per test keeps tests apart). */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown (SIGINT): sessions are ended, committed work is on disk. */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster: a crash; the next `start` recovers from the WAL. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data, after `stop` or `kill`. */
  start(): Promise<void>;
  /** Whether the postmaster is running. */
  running(): boolean;
  /** The postmaster's process id while it runs. */
  pid(): number | undefined;
  /** Stops it and removes the directory. */
  close(): Promise<void>;
}

/** The unprivileged user to run as when we are root (PostgreSQL refuses root), else undefined. */
function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, POSTGRES_USER], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(`the tests run as root and PostgreSQL refuses root, but the user ${POSTGRES_USER} is missing: run \`npx tsx test/provision.ts\``);
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function sql(bin: string, port: number, command: string, user?: RunAs): void {
  const args = ['-h', '127.0.0.1', '-p', String(port), '-U', 'seam', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qAtc', command];
  const r = user
    ? spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', join(bin, 'psql'), ...args], { encoding: 'utf8' })
    : spawnSync(join(bin, 'psql'), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql ${command}: ${r.stderr || r.error?.message}`);
}

/**
 * Starts PostgreSQL from Debian's packages: `initdb` into a temporary directory (trust
 * authentication, superuser `seam`), then `postgres` on a free loopback port with its unix socket
 * in that directory and `fsync=on`, `synchronous_commit=on` (a commit is on disk when it returns,
 * as in production). Run as the `seam-db` user when the tests run as root.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error('PostgreSQL is not installed under /usr/lib/postgresql: run `npx tsx test/provision.ts`');
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'seam-pg-'));
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(data, user.uid, user.gid);
  }
  const initArgs = ['-D', data, '-U', 'seam', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'];
  const init = user
    ? spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', join(bin, 'initdb'), ...initArgs], { encoding: 'utf8' })
    : spawnSync(join(bin, 'initdb'), initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.error?.message}`);
  }

  let port = await freePort();
  let daemon: Daemon | undefined;
  const isReady = async () => spawnSync(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).status === 0;
  const launch = async (attempts: number): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const d = spawnDaemon(join(bin, 'postgres'), [
        '-D', data, '-p', String(port), '-k', dir,
        '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on', '-c', 'synchronous_commit=on',
        '-c', 'max_connections=200', '-c', 'shared_buffers=32MB',
      ], user ? { runAs: user } : {});
      try {
        await waitReady(d, 'PostgreSQL', isReady);
        daemon = d;
        return;
      } catch (err) {
        if (attempt >= attempts) throw err;
        // After a SIGKILL the old backends may hold the shared memory for a moment; a port taken
        // since `freePort` looked fails the same way (a first start may move to another port).
        if (/address already in use/i.test(d.output()) && daemon === undefined) port = await freePort();
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  try {
    await launch(3);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = (db: string) => `postgres://seam@127.0.0.1:${port}/${db}`;
  const stopWith = async (signal: NodeJS.Signals) => {
    await daemon?.kill(signal);
  };
  return {
    get url() {
      return url('postgres');
    },
    get port() {
      return port;
    },
    dir,
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${JSON.stringify(name)} must be a plain lowercase identifier`);
      sql(bin, port, `CREATE DATABASE ${name}`, user);
      return url(name);
    },
    stop: () => stopWith('SIGINT'),
    kill: () => stopWith('SIGKILL'),
    start: async () => {
      if (daemon && !daemon.exited()) return;
      await launch(20);
    },
    running: () => daemon !== undefined && !daemon.exited(),
    pid: () => (daemon && !daemon.exited() ? daemon.child.pid : undefined),
    close: async () => {
      await stopWith('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
