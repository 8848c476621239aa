import { setTimeout as sleep } from 'node:timers/promises';
import * as Y from 'yjs';
import { annotationsMap, type Annotation } from '@seam/shared/model';
import { AckTracker } from './acks';
import { addAnnotations, benchAnnotation, benchDumpText } from './annotations';
import { openStockClient, timeJoin } from './clients';
import { serveLoad } from './ipc';
import { LoadMeter, until, waitFor, type LoadProcessUsage } from './load-meter';
import type { BenchRoom } from './servers';

/** The join load: fill a room with annotations, then time fresh stock clients joining it, one at a time. */
export interface JoinConfig {
  readonly syncUrl: string;
  readonly room: BenchRoom;
  readonly annotations: number;
  /** Annotations per transaction while filling the room. */
  readonly batch: number;
  /** Transactions per second while filling (below the server's per-connection update rate). */
  readonly batchesPerSecond: number;
  readonly joins: number;
  readonly acks: boolean;
}

/** What the join load process measured. */
export interface JoinResult {
  /** Connect → `sync` in ms, per join. */
  readonly times: number[];
  /** Connect → socket open, per join. */
  readonly connect: number[];
  /** Socket open → the room's sync step 2 received: the server's share (and the wire), per join. */
  readonly serve: number[];
  /** Step 2 received → `sync`: the client applying the room, per join. */
  readonly apply: number[];
  /** Joins whose document lacked annotations once synced. */
  readonly incomplete: number;
  /** Size of the room document as one update, bytes. */
  readonly docBytes: number;
  /** Seconds filling the room took, until the last write was acknowledged (or seen by a fresh client). */
  readonly fillSeconds: number;
  readonly closes: number[];
  readonly load: LoadProcessUsage;
}

// Every stock provider adds a process 'exit' listener.
process.setMaxListeners(0);

serveLoad<JoinConfig, JoinResult>(async (config, ready, go) => {
  const { room, annotations: count } = config;
  const writer = openStockClient(config.syncUrl, room.id, config.acks ? { ...room.writer, ack: '1' } : room.writer, 'writer');
  // Before the first message: the ack of the handshake's step 2 can come right after it.
  const acks = config.acks ? new AckTracker(writer) : undefined;
  await writer.synced;
  const text = benchDumpText();
  const author = { id: 'bench-writer', name: 'Writer', color: '#ef4444' };
  const fillStart = performance.now();
  for (let first = 0, k = 0; first < count; first += config.batch, k += 1) {
    await until(fillStart + (k * 1000) / config.batchesPerSecond);
    const batch: Annotation[] = [];
    for (let n = first; n < Math.min(count, first + config.batch); n += 1) {
      batch.push(benchAnnotation(`join-${writer.doc.clientID}-${n}`, n, room.docId, text, author));
    }
    addAnnotations(writer.doc, batch);
    acks?.wrote(performance.now());
  }
  if (acks && !(await waitFor(() => acks.unacknowledged === 0, 60_000))) throw new Error(`${acks.unacknowledged} fill writes never acknowledged`);
  // A fresh client that sees every annotation proves the server holds the whole room before timing starts.
  const check = openStockClient(config.syncUrl, room.id, room.reader, 'check');
  await check.synced;
  if (!(await waitFor(() => annotationsMap(check.doc).size === count, 60_000))) throw new Error('the room never held every annotation');
  check.destroy();
  const fillSeconds = (performance.now() - fillStart) / 1000;
  ready();
  await go;

  const meter = new LoadMeter();
  const times: number[] = [];
  const connect: number[] = [];
  const serve: number[] = [];
  const apply: number[] = [];
  const closes: number[] = [...writer.closes, ...check.closes];
  let incomplete = 0;
  for (let i = 0; i < config.joins; i += 1) {
    const start = performance.now();
    const joiner = openStockClient(config.syncUrl, room.id, room.writer, `joiner ${i}`);
    const phases = timeJoin(joiner);
    await joiner.synced;
    const synced = performance.now();
    times.push(synced - start);
    connect.push(phases.opened - start);
    serve.push(phases.step2 - phases.opened);
    apply.push(synced - phases.step2);
    if (annotationsMap(joiner.doc).size !== count) incomplete += 1;
    closes.push(...joiner.closes);
    joiner.destroy();
    await sleep(100);
  }
  const load = meter.stop();
  const docBytes = Y.encodeStateAsUpdate(writer.doc).byteLength;
  writer.destroy();
  return { times, connect, serve, apply, incomplete, docBytes, fillSeconds, closes, load };
});
