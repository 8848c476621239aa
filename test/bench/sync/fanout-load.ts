import type * as Y from 'yjs';
import { annotationsMap } from '@seam/shared/model';
import { AckTracker } from './acks';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { openMany, openStockClient, type StockClient } from './clients';
import { serveLoad } from './ipc';
import { LoadMeter, until, waitFor, type LoadProcessUsage } from './load-meter';
import type { BenchRoom } from './servers';

/** The fan-out load: readers in one room, one writer adding annotations at a steady rate. */
export interface FanoutConfig {
  readonly syncUrl: string;
  readonly room: BenchRoom;
  readonly readers: number;
  readonly annotations: number;
  readonly perSecond: number;
  /** Whether the writer asks for acks (`ack=1`) and measures write→ack. */
  readonly acks: boolean;
  /** How long to wait after the last write for deliveries and acks still under way. */
  readonly drainMs: number;
}

export interface FanoutResult {
  /** Write→delivery in ms, one per (annotation, reader) pair that arrived. */
  readonly latencies: number[];
  /** (annotation, reader) pairs that never arrived. */
  readonly missing: number;
  /** Write→ack in ms, one per acknowledged write; empty without acks. */
  readonly ackLatencies: number[];
  readonly unacknowledged: number;
  /** Seconds the writer took for all its writes (the rate it really achieved). */
  readonly writeSeconds: number;
  /** Close codes of sockets the server closed during the run. */
  readonly closes: number[];
  readonly load: LoadProcessUsage;
}

/** Delivery times of one reader, by annotation number. */
function watch(client: StockClient, count: number, index: Map<string, number>, onComplete: () => void): Float64Array {
  const arrivals = new Float64Array(count).fill(NaN);
  let seen = 0;
  annotationsMap(client.doc).observe((event: Y.YMapEvent<Y.Map<unknown>>) => {
    const now = performance.now();
    for (const key of event.keysChanged) {
      const n = index.get(key);
      if (n === undefined || !Number.isNaN(arrivals[n])) continue;
      arrivals[n] = now;
      seen += 1;
      if (seen === count) onComplete();
    }
  });
  return arrivals;
}

// Every stock provider adds a process 'exit' listener.
process.setMaxListeners(0);

serveLoad<FanoutConfig, FanoutResult>(async (config, ready, go) => {
  const { room, annotations: count } = config;
  const readers = await openMany(config.readers, 20, async (i) => {
    const client = openStockClient(config.syncUrl, room.id, room.reader, `reader ${i}`);
    await client.synced;
    return client;
  });
  const writer = openStockClient(config.syncUrl, room.id, config.acks ? { ...room.writer, ack: '1' } : room.writer, 'writer');
  await writer.synced;
  const acks = config.acks ? new AckTracker(writer) : undefined;
  const ids = Array.from({ length: count }, (_, n) => `fanout-${writer.doc.clientID}-${n}`);
  const index = new Map(ids.map((id, n) => [id, n]));
  let complete = 0;
  const arrivals = readers.map((r) => watch(r, count, index, () => (complete += 1)));
  ready();
  await go;

  const meter = new LoadMeter();
  const text = benchDumpText();
  const author = { id: 'bench-writer', name: 'Writer', color: '#ef4444' };
  const sent = new Float64Array(count);
  const start = performance.now();
  for (let n = 0; n < count; n += 1) {
    await until(start + (n * 1000) / config.perSecond);
    const annotation = benchAnnotation(ids[n] ?? '', n, room.docId, text, author);
    sent[n] = performance.now();
    addAnnotations(writer.doc, [annotation]);
    acks?.wrote(sent[n] ?? 0);
  }
  const writeSeconds = (performance.now() - start) / 1000;
  await waitFor(() => complete === readers.length && (acks?.unacknowledged ?? 0) === 0, config.drainMs);
  const load = meter.stop();

  const latencies: number[] = [];
  let missing = 0;
  for (const times of arrivals) {
    times.forEach((t, n) => {
      if (Number.isNaN(t)) missing += 1;
      else latencies.push(t - (sent[n] ?? 0));
    });
  }
  const closes = [...readers, writer].flatMap((c) => c.closes);
  for (const c of [...readers, writer]) c.destroy();
  return { latencies, missing, ackLatencies: acks?.latencies ?? [], unacknowledged: acks?.unacknowledged ?? 0, writeSeconds, closes, load };
});
