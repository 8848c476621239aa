import { addAnnotation, annotationsMap } from '@seam/shared/model';
import { connectClient, createRoom, note, waitFor, type TestClient } from '../helpers';
import { startCluster } from '../helpers/scale/cluster';
import { startPostgres } from '../helpers/scale/postgres';
import { startRedis } from '../helpers/scale/redis';
import { fileURLToPath } from 'node:url';
import type { CapacityConfig, CapacityResult } from './sync/capacity-load';
import { forkLoad } from './sync/ipc';
import type { BenchRoom } from './sync/servers';
import { printTable, quantile } from './table';

/**
 * `npm run bench scale`: scaled mode on this machine, three Seam instances on one PostgreSQL and
 * one Redis behind HAProxy (the test harness's).
 *
 * - Fan-out: one writer on instance 0 adds annotations at `RATE`/s; `READERS` stock readers on the
 *   same instance and as many on instance 1 record when each arrives. Same-instance delivery waits
 *   for PostgreSQL's COMMIT; cross-instance delivery adds Redis and the other instance. The ratio
 *   of the two p99s, in the same run, is the goal (≤ 1.5).
 * - Failover: `FAILOVER_CLIENTS` stock clients connect through HAProxy, then instance 0 is killed
 *   (`kill -9`); the time from the kill until every client is connected and synced again (its
 *   sync step 2 received from a live instance) is the goal (≤ 3 s).
 * - Capacity: the capacity benchmark's lean clients (`sync/capacity-load.ts`, 4 to a room, in two
 *   load processes) at one total write rate, once against instance 0 alone and once through
 *   HAProxy over the three (a room's clients then sit on different instances); delivery p99 of
 *   each. On this 2-core machine the three instances, PostgreSQL, Redis and HAProxy share the
 *   same cores, so this says what spreading costs here, not what three machines would give.
 *
 * Every client runs in this process, so their latencies include this process's own queueing.
 * `SEAM_BENCH_QUICK=1` halves the loads.
 */
const quick = process.env.SEAM_BENCH_QUICK === '1';
const READERS = quick ? 5 : 10;
const WRITES = quick ? 200 : 400;
const RATE = 50;
const FAILOVER_CLIENTS = quick ? 15 : 30;
const CAPACITY = quick ? { rooms: 20, perSecond: 40, seconds: 5 } : { rooms: 100, perSecond: 200, seconds: 20 };
const capacityScript = fileURLToPath(new URL('./sync/capacity-load.ts', import.meta.url));
const ROUNDS = quick ? 1 : 3;

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
const databaseUrl = await postgres.createDatabase('seam_bench');
// The capacity load makes its rooms at once: room creation is not what is measured.
const cluster = await startCluster(3, { SEAM_DATABASE_URL: databaseUrl, SEAM_REDIS_URL: redis.url, SEAM_ROOMS_PER_MIN: '100000', SEAM_ROOMS_PER_HOUR: '100000' });
const direct = (i: number) => ({ url: cluster.instances[i]!.server!.url });

/** Delivery latencies (ms) of `WRITES` annotations from a writer on instance 0 to readers on instances 0 and 1. */
async function fanout(): Promise<{ same: number[]; cross: number[] }> {
  const room = await createRoom(direct(0), 'fan-out');
  const writtenAt = new Map<string, number>();
  const same: number[] = [];
  const cross: number[] = [];
  const readers: TestClient[] = [];
  for (const [instance, into] of [[0, same], [1, cross]] as const) {
    for (let r = 0; r < READERS; r++) {
      const c = connectClient(direct(instance), room.id, room.tokens.viewer);
      await c.synced();
      annotationsMap(c.doc).observe((ev) => {
        const now = performance.now();
        for (const key of ev.keysChanged) {
          const at = writtenAt.get(key);
          if (at !== undefined) into.push(now - at);
        }
      });
      readers.push(c);
    }
  }
  const writer = connectClient(direct(0), room.id, room.tokens.annotator);
  await writer.synced();
  for (let i = 0; i < WRITES; i++) {
    const id = `n${i}`;
    writtenAt.set(id, performance.now());
    addAnnotation(writer.doc, note(id));
    await new Promise((r) => setTimeout(r, 1000 / RATE));
  }
  await waitFor(() => same.length + cross.length === 2 * READERS * WRITES, 'every delivery', 60_000);
  for (const c of [...readers, writer]) c.destroy();
  return { same, cross };
}

/** Milliseconds from `kill -9` of instance 0 until every client through HAProxy is connected and synced again. */
async function failover(): Promise<{ ms: number; moved: number }> {
  const room = await createRoom({ url: cluster.url }, 'failover');
  const clients: TestClient[] = [];
  for (let i = 0; i < FAILOVER_CLIENTS; i++) clients.push(connectClient({ url: cluster.url }, room.id, room.tokens.annotator));
  await Promise.all(clients.map((c) => c.synced()));
  for (const c of clients) addAnnotation(c.doc, note(`c${c.doc.clientID}`));
  await waitFor(() => clients.every((c) => annotationsMap(c.doc).size === FAILOVER_CLIENTS), 'every client to see every other', 30_000);
  const dropped = new Set<TestClient>();
  for (const c of clients) c.provider.on('status', ({ status }: { status: string }) => status === 'disconnected' && dropped.add(c));
  const killedAt = performance.now();
  await cluster.instances[0]!.kill();
  await waitFor(() => dropped.size > 0 && clients.every((c) => c.provider.wsconnected && c.provider.synced), 'every client resynced', 30_000);
  const ms = performance.now() - killedAt;
  const moved = dropped.size;
  for (const c of clients) c.destroy();
  await cluster.instances[0]!.start();
  return { ms, moved };
}

/** Delivery latencies of the capacity load through `httpUrl` (rooms made there). */
async function capacity(httpUrl: string): Promise<{ latencies: number[]; missing: number; closes: number[] }> {
  const rooms: BenchRoom[] = [];
  for (let i = 0; i < CAPACITY.rooms; i++) {
    const r = await createRoom({ url: httpUrl }, `capacity ${i}`);
    rooms.push({ id: r.id, docId: 'd', writer: { token: r.tokens.annotator }, reader: { token: r.tokens.viewer } });
  }
  const syncUrl = `${httpUrl.replace(/^http/, 'ws')}/sync`;
  const loads = [0, 1].map((p) => forkLoad<CapacityConfig, CapacityResult>(capacityScript, {
    syncUrl, rooms: rooms.filter((_, i) => i % 2 === p), clientsPerRoom: 4, perSecond: CAPACITY.perSecond / 2, seconds: CAPACITY.seconds, drainMs: 15_000,
  }));
  try {
    await Promise.all(loads.map((l) => l.ready));
    for (const l of loads) l.go();
    const parts = await Promise.all(loads.map((l) => l.result));
    return { latencies: parts.flatMap((p) => p.latencies), missing: parts.reduce((n, p) => n + p.missing, 0), closes: parts.flatMap((p) => p.closes) };
  } finally {
    for (const l of loads) l.kill();
  }
}

try {
  const rows: (string | number)[][] = [];
  const same: number[] = [];
  const cross: number[] = [];
  const failovers: { ms: number; moved: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const f = await fanout();
    same.push(...f.same);
    cross.push(...f.cross);
    rows.push([`fan-out #${round + 1}, same instance`, f.same.length, quantile(f.same, 0.5), quantile(f.same, 0.99), Math.max(...f.same)]);
    rows.push([`fan-out #${round + 1}, cross instance`, f.cross.length, quantile(f.cross, 0.5), quantile(f.cross, 0.99), Math.max(...f.cross)]);
    failovers.push(await failover());
  }
  printTable(`delivery latency (ms), writer on instance 0, ${READERS} readers on it and ${READERS} on instance 1, ${WRITES} annotations at ${RATE}/s`, ['run', 'deliveries', 'p50', 'p99', 'max'], rows);
  const ratio = quantile(cross, 0.99) / quantile(same, 0.99);
  console.log(`\ncross-instance p99 / same-instance p99 (all runs): ${ratio.toFixed(2)} (goal ≤ 1.5: ${ratio <= 1.5 ? 'met' : 'not met'})`);
  printTable(`failover: ${FAILOVER_CLIENTS} clients through HAProxy, kill -9 of instance 0 until every client is synced again`, ['run', 'clients moved', 'ms'],
    failovers.map((f, i) => [`#${i + 1}`, f.moved, f.ms]));
  const worst = Math.max(...failovers.map((f) => f.ms));
  console.log(`\nfailover, worst run: ${Math.round(worst)} ms (goal ≤ 3,000 ms: ${worst <= 3000 ? 'met' : 'not met'})`);
  const one = await capacity(direct(0).url);
  const three = await capacity(cluster.url);
  printTable(`capacity: ${CAPACITY.rooms * 4} lean clients in ${CAPACITY.rooms} rooms, ${CAPACITY.perSecond} updates/s for ${CAPACITY.seconds} s`,
    ['instances', 'deliveries', 'missing', 'closes', 'p50', 'p99', 'max'],
    ([['1 (instance 0)', one], ['3 (HAProxy)', three]] as const).map(([label, c]) => [label, c.latencies.length, c.missing, c.closes.length,
      quantile(c.latencies, 0.5), quantile(c.latencies, 0.99), Math.max(...c.latencies)]));
  console.log(`
capacity p99, three instances / one: ${(quantile(three.latencies, 0.99) / quantile(one.latencies, 0.99)).toFixed(2)}`);
} finally {
  await cluster.close();
  await Promise.all([postgres.close(), redis.close()]);
}
