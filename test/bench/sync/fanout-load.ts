import type * as Y from 'yjs';
import { annotationsMap } from '@seam/shared/model';
import { AckTracker } from './acks';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { openMany, openStockClient, roundTrip, type StockClient } from './clients';
import { serveLoad } from './ipc';
import { LoadMeter, until, waitFor, type LoadProcessUsage } from './load-meter';
import type { BenchRoom } from './servers';

/**
 * One share of the fan-out load: readers `part`, `part + parts`, … of one room, or (`part:
 * 'writer'`) the writer alone, which adds annotations at a steady rate: its writes and acks are
 * then timed by an event loop that applies no reader's updates. Times are epoch milliseconds with sub-ms precision
 * (`performance.timeOrigin + performance.now()`), comparable across the load processes.
 */
export interface FanoutConfig {
  readonly syncUrl: string;
  readonly room: BenchRoom;
  readonly readers: number;
  /** This share's index among `parts` reader shares, or the writer's share. */
  readonly part: number | 'writer';
  readonly parts: number;
  /** Prefix of the annotation ids, the same in every share: annotation `n` is `${prefix}-${n}`. */
  readonly prefix: string;
  readonly annotations: number;
  readonly perSecond: number;
  /** Whether the writer asks for acks (`ack=1`) and measures write→ack. */
  readonly acks: boolean;
  /** How long to wait after the last write for deliveries and acks still under way. */
  readonly drainMs: number;
}

/** What one fan-out load process measured. */
export interface FanoutResult {
  /** Per reader of this share, per annotation: when it arrived, or -1 if it never did. */
  readonly arrivals: number[][];
  /** The writer's share only: when each annotation was written. */
  readonly sent: number[];
  /** Write→ack in ms, one per acknowledged write; empty without acks or writer. */
  readonly ackLatencies: number[];
  readonly unacknowledged: number;
  /** Seconds the writer took for all its writes (the rate it really achieved); 0 without writer. */
  readonly writeSeconds: number;
  /** Close codes of sockets the server closed during the run. */
  readonly closes: number[];
  readonly load: LoadProcessUsage;
}

const epochNow = (): number => performance.timeOrigin + performance.now();

/** Delivery times of one reader, by annotation number; calls `onComplete` once all have arrived. */
function watch(client: StockClient, count: number, index: Map<string, number>, onComplete: () => void): Float64Array {
  const arrivals = new Float64Array(count).fill(-1);
  let seen = 0;
  annotationsMap(client.doc).observe((event: Y.YMapEvent<Y.Map<unknown>>) => {
    const now = epochNow();
    for (const key of event.keysChanged) {
      const n = index.get(key);
      if (n === undefined || arrivals[n] !== -1) continue;
      arrivals[n] = now;
      seen += 1;
      if (seen === count) onComplete();
    }
  });
  return arrivals;
}

async function write(config: FanoutConfig, writer: StockClient, acks: AckTracker | undefined): Promise<{ sent: number[]; seconds: number }> {
  const text = benchDumpText();
  const author = { id: 'bench-writer', name: 'Writer', color: '#ef4444' };
  const sent: number[] = [];
  const start = performance.now();
  for (let n = 0; n < config.annotations; n += 1) {
    await until(start + (n * 1000) / config.perSecond);
    const annotation = benchAnnotation(`${config.prefix}-${n}`, n, config.room.docId, text, author);
    sent.push(epochNow());
    addAnnotations(writer.doc, [annotation]);
    acks?.wrote(performance.now());
  }
  return { sent, seconds: (performance.now() - start) / 1000 };
}

// Every stock provider adds a process 'exit' listener.
process.setMaxListeners(0);

serveLoad<FanoutConfig, FanoutResult>(async (config, ready, go) => {
  const { room, annotations: count } = config;
  const mine = Array.from({ length: config.readers }, (_, i) => i).filter((i) => i % config.parts === config.part);
  const readers = await openMany(mine.length, 20, async (k) => {
    const client = openStockClient(config.syncUrl, room.id, room.reader, `reader ${mine[k]}`);
    await client.synced;
    return client;
  });
  const writer = config.part === 'writer' ? openStockClient(config.syncUrl, room.id, config.acks ? { ...room.writer, ack: '1' } : room.writer, 'writer') : undefined;
  // Before the first message: the ack of the handshake's step 2 can come right after it.
  const acks = writer && config.acks ? new AckTracker(writer) : undefined;
  await writer?.synced;
  const index = new Map(Array.from({ length: count }, (_, n) => [`${config.prefix}-${n}`, n]));
  let complete = 0;
  const arrivals = readers.map((r) => watch(r, count, index, () => (complete += 1)));
  ready();
  await go;

  const meter = new LoadMeter();
  const written = writer ? await write(config, writer, acks) : { sent: [], seconds: 0 };
  if (writer) await roundTrip(writer);
  const drainUntil = writer ? config.drainMs : (count * 1000) / config.perSecond + config.drainMs;
  await waitFor(() => complete === readers.length && (acks?.unacknowledged ?? 0) === 0, drainUntil);
  const load = meter.stop();
  const clients = writer ? [...readers, writer] : readers;
  const closes = clients.flatMap((c) => c.closes);
  for (const c of clients) c.destroy();
  return {
    arrivals: arrivals.map((a) => Array.from(a)),
    sent: written.sent,
    ackLatencies: acks?.latencies ?? [],
    unacknowledged: acks?.unacknowledged ?? 0,
    writeSeconds: written.seconds,
    closes,
    load,
  };
});
