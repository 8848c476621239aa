import * as Y from 'yjs';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { openMany } from './clients';
import { serveLoad } from './ipc';
import { LeanClient, firstStructId, type WriteId } from './lean-client';
import { LoadMeter, until, waitFor, type LoadProcessUsage } from './load-meter';
import type { BenchRoom } from './servers';

/**
 * One share of the capacity load: `clientsPerRoom` lean protocol clients (`LeanClient`) in each of
 * its rooms; writes at a steady total rate, round-robin over the rooms and, within a room, over its
 * clients. Every client of a room lives in this process, so write and delivery times share one
 * clock. A delivery is the arrival of the update message whose first struct has the write's Yjs ID,
 * checked to carry the write's annotation key.
 */
export interface CapacityConfig {
  readonly syncUrl: string;
  readonly rooms: readonly BenchRoom[];
  readonly clientsPerRoom: number;
  /** Writes per second over all rooms of this process. */
  readonly perSecond: number;
  readonly seconds: number;
  readonly drainMs: number;
}

/** What one capacity load process measured. */
export interface CapacityResult {
  readonly writes: number;
  /** Write→delivery in ms, one per (write, other client of the room) that arrived. */
  readonly latencies: number[];
  readonly missing: number;
  /** Update messages that matched a write's ID but not its annotation key (a defect; also counted in `missing`). */
  readonly mismatched: number;
  readonly closes: number[];
  readonly load: LoadProcessUsage;
}

interface Sent {
  readonly at: number;
  readonly by: LeanClient;
  readonly key: string;
}

/** The map key a write sets: the parent key of its first struct. */
function keyOf(update: Uint8Array): string | null | undefined {
  const first = Y.decodeUpdate(update).structs[0];
  return first instanceof Y.Item ? first.parentSub : undefined;
}

serveLoad<CapacityConfig, CapacityResult>(async (config, ready, go) => {
  const per = config.clientsPerRoom;
  const sent = new Map<WriteId, Sent>();
  const latencies: number[] = [];
  let mismatched = 0;
  const clients = await openMany(config.rooms.length * per, 50, async (i) => {
    const room = config.rooms[Math.floor(i / per)] as BenchRoom;
    const url = `${config.syncUrl}/${room.id}?${new URLSearchParams(room.writer as Record<string, string>).toString()}`;
    const client: LeanClient = new LeanClient(url, `client ${i}`, (arrivedAt, update) => {
      const id = firstStructId(update);
      const write = id === undefined ? undefined : sent.get(id);
      if (!write || write.by === client) return;
      if (keyOf(update) === write.key) latencies.push(arrivedAt - write.at);
      else mismatched += 1;
    });
    await client.synced;
    return client;
  });
  ready({ clients: clients.length });
  await go;

  const meter = new LoadMeter();
  const text = benchDumpText();
  const author = { id: 'bench', name: 'Load', color: '#22c55e' };
  const writes = Math.round(config.perSecond * config.seconds);
  const start = performance.now();
  for (let k = 0; k < writes; k += 1) {
    await until(start + (k * 1000) / config.perSecond);
    const r = k % config.rooms.length;
    const by = clients[r * per + (Math.floor(k / config.rooms.length) % per)] as LeanClient;
    const key = `cap-${by.doc.clientID}-${k}`;
    const annotation = benchAnnotation(key, k, config.rooms[r]?.docId ?? '', text, author);
    const at = performance.now();
    sent.set(by.write((doc) => addAnnotations(doc, [annotation])), { at, by, key });
  }
  const expected = writes * (per - 1);
  await waitFor(() => latencies.length + mismatched >= expected, config.drainMs);
  const load = meter.stop();
  const closes = clients.flatMap((c) => c.closes);
  for (const c of clients) c.close();
  return { writes, latencies: latencies.map((l) => Math.round(l * 100) / 100), missing: expected - latencies.length, mismatched, closes, load };
});
