import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SyncMode } from '../config';

/** When and how far the WAL is checkpointed (docs/storage.md, "Checkpoints"). */
export interface CheckpointOptions {
  /**
   * Time between checkpoint rounds. Default 5,000 ms: every round syncs the WAL and the database
   * file, and at one round a second commits on the event loop waited on the file system more often
   * (docs/benchmarks.md, room server).
   */
  readonly intervalMs: number;
  /** A WAL file larger than this after a passive checkpoint is checkpointed with TRUNCATE. Default 64 MiB. */
  readonly maxWalBytes: number;
}

/** The defaults of `CheckpointOptions`. */
export const DEFAULT_CHECKPOINT: CheckpointOptions = { intervalMs: 5000, maxWalBytes: 64 * 1024 * 1024 };

/**
 * Passive checkpoints a round may add after its first, each while the one before found frames
 * committed since. A commit reuses the WAL from its start only when every frame of it has been
 * copied; under steady writes one pass never gets there (commits land while it copies and syncs),
 * so without these the WAL grew by every commit until the TRUNCATE bound, whose checkpoint makes
 * commits wait for it (50–100 ms at 400 updates/s). The later passes copy only what came during
 * the pass before, so they are short, and one that finds nothing new costs no sync.
 */
export const CATCH_UP_ROUNDS = 4;

/** SQLite's answer to `PRAGMA wal_checkpoint(…)`. */
export interface CheckpointAnswer {
  /** 1 when the checkpoint could not finish (a reader or a writer was in the way). */
  readonly busy: number;
  /** Frames in the WAL, and how many of them are now in the database file. */
  readonly log: number;
  readonly checkpointed: number;
}

/** What one checkpoint round did: SQLite's answer to the last checkpoint, and the WAL size after it. */
export interface CheckpointRound extends CheckpointAnswer {
  /** Whether the WAL had passed `maxWalBytes` and was truncated. */
  readonly truncated: boolean;
  readonly walBytes: number;
}

/** What a checkpoint round asks of its connection. */
export interface RoundSql {
  passive(): CheckpointAnswer;
  truncate(): CheckpointAnswer;
  walBytes(): number;
}

/**
 * One checkpoint round: a passive checkpoint, then up to `catchUp` more while each finds frames
 * committed during the one before (`CATCH_UP_ROUNDS`), then a TRUNCATE checkpoint if the WAL is
 * still larger than `maxWalBytes`. It names nothing outside itself: the worker runs its source.
 */
export const checkpointRound = (sql: RoundSql, catchUp: number, maxWalBytes: number): CheckpointRound => {
  let r = sql.passive();
  for (let i = 0; i < catchUp; i += 1) {
    const next = sql.passive();
    const same = next.log === r.log && next.checkpointed === r.checkpointed;
    r = next;
    if (same) break;
  }
  let truncated = false;
  if (sql.walBytes() > maxWalBytes) {
    r = sql.truncate();
    truncated = true;
  }
  return { busy: r.busy, log: r.log, checkpointed: r.checkpointed, truncated, walBytes: sql.walBytes() };
};

/**
 * The worker thread, as plain JavaScript so that it needs no loader. It owns a second connection
 * to the same database (with the same `synchronous`, which decides the fsyncs of a checkpoint),
 * checkpoints on a timer and when asked, and answers `stop` by closing its connection and setting
 * `done[0]` so that the main thread can wait for it synchronously.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.sqlite);
const db = new Database(workerData.file);
db.pragma('synchronous = ' + workerData.syncMode);
db.pragma('busy_timeout = 1000');
const done = new Int32Array(workerData.done);
const walBytes = () => { try { return statSync(workerData.file + '-wal').size; } catch { return 0; } };
const checkpointRound = ${checkpointRound.toString()};
const sql = { passive: () => db.pragma('wal_checkpoint(PASSIVE)')[0], truncate: () => db.pragma('wal_checkpoint(TRUNCATE)')[0], walBytes };
const round = () => checkpointRound(sql, workerData.catchUpRounds, workerData.maxWalBytes);
const timer = setInterval(() => {
  try { round(); } catch (err) { parentPort.postMessage({ error: String(err) }); }
}, workerData.intervalMs);
parentPort.on('message', (msg) => {
  if (msg.type === 'stop') {
    clearInterval(timer);
    db.close();
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
    parentPort.close();
    return;
  }
  try { parentPort.postMessage({ id: msg.id, round: round() }); }
  catch (err) { parentPort.postMessage({ id: msg.id, error: String(err) }); }
});
`;

type Waiter = { resolve: (r: CheckpointRound) => void; reject: (err: Error) => void };

/**
 * Checkpoints the WAL of `file` from a worker thread, so that the event loop never runs one: the
 * main connection sets `wal_autocheckpoint = 0`, and SQLite's automatic checkpoint (three fsyncs,
 * 8–91 ms at 400 updates/s) would otherwise run inside whichever commit crossed 1,000 pages. A
 * PASSIVE checkpoint never blocks the main connection; the WAL is then reused from its start by
 * the next commit, so it stays about as large as what is written between rounds. Past
 * `maxWalBytes` (a long reader kept PASSIVE from finishing) a TRUNCATE checkpoint bounds it, and
 * may make writers wait for it.
 */
export class Checkpointer {
  private worker: Worker | undefined;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private readonly waiting = new Map<number, Waiter>();
  /** The worker starts after the first interval (or at the first `checkpoint()`): a store closed sooner needs none. */
  private readonly startTimer: NodeJS.Timeout;
  private nextId = 1;
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly syncMode: SyncMode,
    private readonly options: CheckpointOptions,
    private readonly onError: (message: string) => void,
  ) {
    this.startTimer = setTimeout(() => this.start(), options.intervalMs);
    this.startTimer.unref();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    clearTimeout(this.startTimer);
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const { file, syncMode, options } = this;
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { sqlite, file, syncMode, done: this.done.buffer, intervalMs: options.intervalMs, maxWalBytes: options.maxWalBytes, catchUpRounds: CATCH_UP_ROUNDS },
    });
    worker.unref();
    worker.on('message', (msg: { id?: number; round?: CheckpointRound; error?: string }) => {
      if (msg.id === undefined) {
        if (msg.error) this.onError(msg.error);
        return;
      }
      const w = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.round) w?.resolve(msg.round);
      else w?.reject(new Error(`checkpoint failed: ${msg.error ?? 'unknown error'}`));
    });
    worker.on('error', (err) => {
      // A worker that died is replaced after one interval; until then the WAL only grows.
      this.onError(err.message);
      this.failAll(err);
      if (this.worker === worker) this.worker = undefined;
      if (!this.stopped) this.startTimer.refresh();
    });
    this.worker = worker;
    return worker;
  }

  /** Runs one checkpoint round now (besides the timer's) and tells what it did. */
  checkpoint(): Promise<CheckpointRound> {
    if (this.stopped) return Promise.reject(new Error('the checkpointer is stopped'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'round', id });
    });
  }

  /**
   * Stops the timer and closes the worker's connection, waiting (synchronously, up to 10 s for a
   * round in progress) until it is closed, so that the main connection closes last and SQLite
   * checkpoints and removes the WAL as usual.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.startTimer);
    const worker = this.worker;
    if (!worker) return;
    worker.postMessage({ type: 'stop' });
    Atomics.wait(this.done, 0, 0, 10_000);
    this.failAll(new Error('the checkpointer stopped'));
    void worker.terminate();
  }

  private failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
