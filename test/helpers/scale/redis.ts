import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS_SERVER } from './binaries';
import { canConnect, spawnDaemon, waitReady, type Daemon } from './daemon';
import { freePort } from './free-port';

/** A Redis server a test started. */
export interface TestRedis {
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** SIGKILL: whatever Redis held is gone, as after a crash. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  running(): boolean;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/**
 * Starts Debian's `redis-server` on a free loopback port, with its directory in a temporary one.
 * Persistence is off on purpose (`--save ''`, `--appendonly no`): Seam keeps nothing durable in
 * Redis (the room log is in PostgreSQL, awareness is never stored), so a restarted Redis is an
 * empty one, which is what the tests of a Redis restart need.
 */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'seam-redis-'));
  let port = await freePort();
  let daemon: Daemon | undefined;
  const launch = async (attempts: number): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const d = spawnDaemon(REDIS_SERVER, [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
        '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning',
      ]);
      try {
        await waitReady(d, 'Redis', () => canConnect(port));
        daemon = d;
        return;
      } catch (err) {
        if (attempt >= attempts) throw err;
        if (/address already in use/i.test(d.output()) && daemon === undefined) port = await freePort();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  try {
    await launch(3);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    kill: async () => {
      await daemon?.kill('SIGKILL');
    },
    stop: async () => {
      await daemon?.kill('SIGTERM');
    },
    start: async () => {
      if (daemon && !daemon.exited()) return;
      await launch(20);
    },
    running: () => daemon !== undefined && !daemon.exited(),
    close: async () => {
      await daemon?.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
