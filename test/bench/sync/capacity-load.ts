import type * as Y from 'yjs';
import { annotationsMap } from '@seam/shared/model';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { openMany, openStockClient, type StockClient } from './clients';
import { serveLoad } from './ipc';
import { LoadMeter, until, waitFor, type LoadProcessUsage } from './load-meter';
import type { BenchRoom } from './servers';

/**
 * One share of the capacity load: `clientsPerRoom` stock clients in each of its rooms; writes at a
 * steady total rate, round-robin over the rooms and, within a room, over its clients. Every client
 * of a room lives in this process, so write and delivery times share one clock.
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
  readonly closes: number[];
  readonly load: LoadProcessUsage;
}

interface Sent {
  readonly at: number;
  readonly by: StockClient;
}

// Every stock provider adds a process 'exit' listener.
process.setMaxListeners(0);

serveLoad<CapacityConfig, CapacityResult>(async (config, ready, go) => {
  const per = config.clientsPerRoom;
  const clients = await openMany(config.rooms.length * per, 50, async (i) => {
    const room = config.rooms[Math.floor(i / per)] as BenchRoom;
    const client = openStockClient(config.syncUrl, room.id, room.writer, `client ${i}`);
    await client.synced;
    return client;
  });
  const sent = new Map<string, Sent>();
  const latencies: number[] = [];
  for (const client of clients) {
    annotationsMap(client.doc).observe((event: Y.YMapEvent<Y.Map<unknown>>) => {
      const now = performance.now();
      for (const key of event.keysChanged) {
        const write = sent.get(key);
        if (write && write.by !== client) latencies.push(now - write.at);
      }
    });
  }
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
    const by = clients[r * per + (Math.floor(k / config.rooms.length) % per)] as StockClient;
    const id = `cap-${by.doc.clientID}-${k}`;
    const annotation = benchAnnotation(id, k, config.rooms[r]?.docId ?? '', text, author);
    sent.set(id, { at: performance.now(), by });
    addAnnotations(by.doc, [annotation]);
  }
  const expected = writes * (per - 1);
  await waitFor(() => latencies.length >= expected, config.drainMs);
  const load = meter.stop();
  const closes = clients.flatMap((c) => c.closes);
  for (const c of clients) c.destroy();
  return { writes, latencies: latencies.map((l) => Math.round(l * 100) / 100), missing: expected - latencies.length, closes, load };
});
