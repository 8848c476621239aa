import { closeSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_TRACE_LIMITS, TraceFormat, TraceFormatError, TraceTooLarge, sniffTraceFormat, type TraceLimits } from '@seam/shared/trace';
import type { Logger } from 'pino';
import { startAnalysisWorker } from '../analyzer';
import type { Limits } from '../config';
import { openSpoolFile } from './file-spool';
import type { StoredTrace } from './stored-form';

/**
 * Messages to a reduce worker: a trace starts (its format, limits and, for an XSpace, its spool
 * file: a descriptor this thread opened and closes), a chunk of its decompressed bytes
 * (transferred), its end.
 */
export type ReduceRequest =
  | { readonly type: 'start'; readonly format: TraceFormat; readonly limits: TraceLimits; readonly spoolFd?: number }
  | { readonly type: 'chunk'; readonly bytes: Uint8Array }
  | { readonly type: 'end' };
/** Its answers: a chunk was read; the stored form; or why it failed (the error's name and message). */
export type ReduceReply = { readonly type: 'ack' } | { readonly type: 'done'; readonly stored: StoredTrace } | { readonly type: 'error'; readonly name: string; readonly message: string };

/** How long a worker that reduced a trace waits for the next before it is ended (and what it held is given back). */
const IDLE_MS = 15_000;
/** A worker that reduced a trace of more bytes than this is ended at once: what it held goes back now, and starting the next costs little beside such a trace. */
const REUSE_BYTES = 64 * 1024 * 1024;
/** Chunks sent to a worker and not yet read, at most: the sender waits, so a fast upload cannot queue a whole trace in memory. */
const IN_FLIGHT = 4;

/** Thrown when `analyzerWorkers` traces are being reduced already: try again shortly. */
export class TraceReducersBusy extends Error {
  override name = 'TraceReducersBusy';
}

/**
 * Reduces traces off the event loop, one trace at a time a worker thread, at most
 * `analyzerWorkers` at once, each with a heap of at most `analyzerHeapMb`. A worker that reduced
 * a trace of up to `REUSE_BYTES` waits `IDLE_MS` for the next (starting one costs more than
 * reducing a small trace), then ends; one that reduced a larger trace, or whose trace failed or
 * was given up, is ended at once. The trace's decompressed bytes stream in; the worker
 * acknowledges each chunk, so at most a few are ever queued. Errors come back as
 * `TraceFormatError` or `TraceTooLarge` (also when the worker runs out of memory).
 */
export class TraceReducers {
  private active = 0;
  private readonly workers = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();

  constructor(
    private readonly log: Logger,
    private readonly limits: Pick<Limits, 'analyzerWorkers' | 'analyzerHeapMb'>,
    private readonly traceLimits: TraceLimits = DEFAULT_TRACE_LIMITS,
  ) {}

  /** The stored form of the trace whose decompressed bytes `source` yields; its format is sniffed from the first bytes. */
  async reduce(source: AsyncIterable<Uint8Array>): Promise<StoredTrace> {
    if (this.active >= this.limits.analyzerWorkers) throw new TraceReducersBusy(`${this.active} traces are being reduced; try again shortly`);
    this.active += 1;
    let worker: Worker | undefined;
    let spoolFd: number | undefined;
    let reusable = false;
    const it = source[Symbol.asyncIterator]();
    try {
      const first = await it.next();
      if (first.done) throw new TraceFormatError('the trace is empty');
      const format = sniffTraceFormat(first.value) ?? TraceFormat.chromeJson;
      // An XSpace's planes are read back from disk (`XSpaceReducer`), not held.
      if (format === TraceFormat.xplane) spoolFd = openSpoolFile();
      worker = this.takeIdle() ?? this.startWorker();
      const start: ReduceRequest = { type: 'start', format, limits: this.traceLimits, ...(spoolFd !== undefined ? { spoolFd } : {}) };
      const { stored, bytes } = await this.exchange(worker, start, first.value, it);
      reusable = bytes <= REUSE_BYTES;
      return stored;
    } finally {
      // Ends the source early when the reduction failed (its streams are closed).
      await it.return?.();
      this.active -= 1;
      const fd = spoolFd;
      if (worker && reusable) this.putIdle(worker);
      else if (worker) {
        this.workers.delete(worker);
        // The spool file is closed once its worker cannot use the descriptor any more.
        void worker.terminate().finally(() => fd !== undefined && closeSync(fd));
      }
      if (fd !== undefined && (reusable || !worker)) closeSync(fd);
    }
  }

  private takeIdle(): Worker | undefined {
    const worker = this.idle.pop();
    if (worker) {
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
    }
    return worker;
  }

  private putIdle(worker: Worker): void {
    this.idle.push(worker);
    this.idleTimers.set(worker, setTimeout(() => void worker.terminate(), IDLE_MS).unref());
  }

  private startWorker(): Worker {
    // Node's default young generation: the garbage is one parsed chunk at a time, and a larger one only adds resident memory.
    const worker = startAnalysisWorker(new URL('./reduce-worker.ts', import.meta.url), undefined, { maxOldGenerationSizeMb: this.limits.analyzerHeapMb });
    // A waiting worker does not keep the server's process alive.
    worker.unref();
    this.workers.add(worker);
    // Errors of a trace's worker are that trace's; this one keeps an error while it waits from throwing.
    worker.on('error', (err) => {
      if (this.idle.includes(worker)) this.log.error({ err }, 'waiting trace worker failed');
    });
    worker.on('exit', () => {
      this.workers.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
    });
    return worker;
  }

  private async exchange(worker: Worker, start: ReduceRequest, first: Uint8Array, rest: AsyncIterator<Uint8Array>): Promise<{ stored: StoredTrace; bytes: number }> {
    let failure: Error | undefined;
    let bytes = 0;
    let stored: StoredTrace | undefined;
    let inFlight = 0;
    let waiters: (() => void)[] = [];
    const wake = (): void => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    const heapMb = this.limits.analyzerHeapMb;
    const onMessage = (m: ReduceReply): void => {
      if (m.type === 'ack') inFlight -= 1;
      else if (m.type === 'done') stored = m.stored;
      else failure = m.name === 'TraceFormatError' ? new TraceFormatError(m.message) : m.name === 'TraceTooLarge' ? new TraceTooLarge(m.message) : new Error(m.message);
      wake();
    };
    const onError = (err: Error & { code?: string }): void => {
      failure = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new TraceTooLarge(`reducing the trace needed more than the ${heapMb} MB of memory it may take (SEAM_ANALYZER_HEAP_MB)`) : err;
      if (!(failure instanceof TraceTooLarge)) this.log.error({ err }, 'trace worker failed');
      wake();
    };
    const onExit = (code: number): void => {
      failure ??= stored ? undefined : new Error(`the trace worker exited with ${code}`);
      wake();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    const until = async (ready: () => boolean): Promise<void> => {
      while (!ready() && !failure) await new Promise<void>((resolve) => waiters.push(resolve));
      if (failure) throw failure;
    };
    const send = async (chunk: Uint8Array): Promise<void> => {
      // A copy owns its buffer (zlib's may be pooled), so it can be transferred.
      const copy = new Uint8Array(chunk);
      bytes += copy.length;
      inFlight += 1;
      worker.postMessage({ type: 'chunk', bytes: copy } satisfies ReduceRequest, [copy.buffer]);
      await until(() => inFlight < IN_FLIGHT);
    };
    try {
      worker.postMessage(start);
      await send(first);
      for (let next = await rest.next(); !next.done; next = await rest.next()) await send(next.value);
      worker.postMessage({ type: 'end' } satisfies ReduceRequest);
      await until(() => stored !== undefined);
      return { stored: stored!, bytes };
    } finally {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    }
  }

  /** Stops every worker; reductions under way fail. */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }
}
