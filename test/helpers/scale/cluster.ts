import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server';
import { startHaproxy, type TestHaproxy } from './haproxy';

/** One Seam instance of a cluster: a child process, stoppable and restartable. */
export interface ClusterInstance {
  /** The running server, or undefined while stopped. */
  readonly server: TestServer | undefined;
  /** `kill -9`: a crash. */
  kill(): Promise<void>;
  /** SIGTERM: a clean shutdown. */
  stop(): Promise<void>;
  /** Starts it again (on a new port, with the same data directory and environment) and repoints HAProxy at it. */
  start(): Promise<void>;
}

/** Seam instances behind HAProxy. */
export interface TestCluster {
  /** HAProxy's address: what clients dial. */
  readonly url: string;
  readonly haproxy: TestHaproxy;
  readonly instances: readonly ClusterInstance[];
  /** Stops HAProxy and every instance, and removes their data directories. */
  close(): Promise<void>;
}

/**
 * Starts `count` Seam instances (children, `tsx server/src/main.ts`, each on port 0 with a data
 * directory of its own and `env`, where a test puts the shared PostgreSQL and Redis URLs) and
 * HAProxy in front of them, and waits until HAProxy's health checks see every one up.
 */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<TestCluster> {
  const root = mkdtempSync(join(tmpdir(), 'seam-cluster-'));
  const servers: (TestServer | undefined)[] = [];
  let haproxy: TestHaproxy | undefined;
  const cleanup = async () => {
    await haproxy?.close();
    await Promise.all(servers.map((s) => s?.close()));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) servers.push(await startTestServer({ child: true, dataDir: join(root, `instance-${i}`), env }));
    haproxy = await startHaproxy(servers.map((s) => s!.port));
    for (let i = 0; i < count; i++) await haproxy.waitState(i, 'UP');
  } catch (err) {
    await cleanup();
    throw err;
  }
  const proxy = haproxy;
  const instances = servers.map((_, i): ClusterInstance => {
    const end = async (signal: NodeJS.Signals) => {
      const s = servers[i];
      servers[i] = undefined;
      await s?.kill?.(signal);
    };
    return {
      get server() {
        return servers[i];
      },
      kill: () => end('SIGKILL'),
      stop: () => end('SIGTERM'),
      start: async () => {
        if (servers[i]) return;
        const s = await startTestServer({ child: true, dataDir: join(root, `instance-${i}`), env });
        servers[i] = s;
        await proxy.setBackend(i, s.port);
        await proxy.waitState(i, 'UP');
      },
    };
  });
  return { url: proxy.url, haproxy: proxy, instances, close: cleanup };
}
