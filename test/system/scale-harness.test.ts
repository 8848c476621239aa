import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, createRoom, waitFor } from '../helpers';
import { startCluster, type TestCluster } from '../helpers/scale/cluster';
import { POSTGRES_USER } from '../helpers/scale/binaries';
import { canConnect } from '../helpers/scale/daemon';
import { startPostgres, type TestPostgres } from '../helpers/scale/postgres';
import { startRedis, type TestRedis } from '../helpers/scale/redis';

/** Runs `text` on a fresh connection to `url` and returns the rows. */
async function query(url: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** The real uid of a process, from /proc. */
function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

describe('scale harness: PostgreSQL', () => {
  let pgServer: TestPostgres | undefined;
  afterEach(async () => {
    await pgServer?.close();
    pgServer = undefined;
  });

  it('starts on a loopback port with fsync on, not as root, and keeps committed rows across kill -9 and stop/start', async () => {
    pgServer = await startPostgres();
    const url = await pgServer.createDatabase('harness');
    const settings = await query(url, "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'listen_addresses') ORDER BY name");
    expect(settings).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'listen_addresses', setting: '127.0.0.1' },
      { name: 'synchronous_commit', setting: 'on' },
    ]);
    expect(uidOf(pgServer.pid()!)).not.toBe(0);
    expect(uidOf(pgServer.pid()!)).toBe(process.getuid?.() === 0 ? Number(execFileSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8' }).trim()) : process.getuid?.());

    await query(url, 'CREATE TABLE t (v INTEGER)');
    await query(url, 'INSERT INTO t VALUES (1)');
    await pgServer.kill();
    expect(pgServer.running()).toBe(false);
    expect(await canConnect(pgServer.port)).toBe(false);
    await pgServer.start();
    await query(url, 'INSERT INTO t VALUES (2)');
    await pgServer.stop();
    await expect(query(url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await pgServer.start();
    expect(await query(url, 'SELECT v FROM t ORDER BY v')).toEqual([{ v: 1 }, { v: 2 }]);
  });

  it('removes its directory and stops listening on close', async () => {
    const server = await startPostgres();
    expect(existsSync(server.dir)).toBe(true);
    await server.close();
    expect(existsSync(server.dir)).toBe(false);
    expect(await canConnect(server.port)).toBe(false);
  });

  it('refuses a database name that is not a plain identifier, creating nothing', async () => {
    pgServer = await startPostgres();
    await expect(pgServer.createDatabase('x; DROP DATABASE postgres')).rejects.toThrow(/plain lowercase identifier/);
    const names = (await query(pgServer.url, 'SELECT datname FROM pg_database WHERE NOT datistemplate ORDER BY datname')).map((r) => r.datname);
    expect(names).toEqual(['postgres']);
  });
});

describe('scale harness: Redis', () => {
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.close();
    redis = undefined;
  });

  it('starts on a loopback port without persistence, and a restart after kill -9 comes back empty', async () => {
    redis = await startRedis();
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
      await redis.kill();
      expect(await canConnect(redis.port)).toBe(false);
      await redis.start();
      await waitFor(async () => client.status === 'ready', 'the client to reconnect');
      expect(await client.get('k')).toBeNull();
    } finally {
      client.disconnect();
    }
  });

  it('stops listening on close', async () => {
    const server = await startRedis();
    await server.close();
    expect(await canConnect(server.port)).toBe(false);
  });
});

describe('scale harness: Seam instances behind HAProxy', () => {
  let cluster: TestCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('serves HTTP and the sync websocket through HAProxy, takes a killed instance out and a restarted one back', async () => {
    cluster = await startCluster(2);
    expect(await cluster.haproxy.states()).toEqual(['UP', 'UP']);
    const health = await fetch(`${cluster.url}/healthz`);
    expect(health.status).toBe(200);

    // Each instance has its own store until the scaled mode is wired: a room lives on the one that
    // created it, so the client dials that instance through HAProxy only when it is the only one up.
    await cluster.instances[1]!.kill();
    await cluster.haproxy.waitState(1, 'DOWN');
    const room = await createRoom(cluster);
    const client = connectClient(cluster, room.id, room.tokens.annotator);
    try {
      await client.synced();
      for (let i = 0; i < 4; i++) expect((await fetch(`${cluster.url}/healthz`)).status).toBe(200);

      await cluster.instances[1]!.start();
      expect(await cluster.haproxy.states()).toEqual(['UP', 'UP']);
      expect(cluster.instances[1]!.server).toBeDefined();
    } finally {
      client.destroy();
    }
    const ports = cluster.instances.map((i) => i.server!.port);
    const proxyPort = cluster.haproxy.port;
    await cluster.close();
    cluster = undefined;
    for (const port of [...ports, proxyPort]) expect(await canConnect(port)).toBe(false);
  });
});
