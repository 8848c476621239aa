import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { analyze, type Analysis } from '@seam/shared/ir';
import { DocumentKind } from '@seam/shared/model';
import type { Logger } from 'pino';
import { analysisForms, type AnalysisForms } from './analysis-forms';
import { DEFAULT_LIMITS, type Limits } from './config';

const gzipAsync = promisify(gzip);

/** Dumps at least this long (characters) are analyzed off the event loop; about 150 ms of work. */
export const WORKER_THRESHOLD = 512 * 1024;

/**
 * V8 heap settings of the analysis worker thread: a 96 MB young generation (32 MB semi-spaces,
 * twice Node's default); Node's default old-generation limit is kept. Indexing a 52 MB HLO dump
 * allocates about 125 MB; with this young generation that takes two or three scavenges instead of
 * five or six, and the dump is indexed 11-29% faster by wall clock in A/B runs
 * (docs/benchmarks.md, IR core), for a peak heap of about 2.1 times the text instead of 2.0.
 */
export const ANALYSIS_WORKER_LIMITS: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 96 });

/**
 * Starts a worker thread that runs the TypeScript module at `entry` (tsx's loader registered in
 * it), with the analysis heap settings (`ANALYSIS_WORKER_LIMITS` unless `resourceLimits` says
 * more); `workerData` is handed to it. The analyzer's own workers, and the IR benchmark's, which
 * times `analyze` as the product runs it.
 */
export function startAnalysisWorker(entry: URL, workerData?: unknown, resourceLimits: ResourceLimits = ANALYSIS_WORKER_LIMITS): Worker {
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, resourceLimits, workerData });
}

/** The views and keys parts of an analysis, gzipped. */
export type AnalysisParts = Omit<AnalysisForms, 'analysis'>;

/** A job for the worker thread: index a dump, or split an analysis stored before the parts were. */
export type AnalyzerJob = { readonly id: number; readonly text: string; readonly kind: DocumentKind } | { readonly id: number; readonly analysisGzip: Uint8Array };

/** The worker thread's answer: the gzipped forms the job asked for, or why it failed. */
export type AnalyzerReply = { readonly id: number; readonly forms?: Partial<AnalysisForms>; readonly error?: string };

/** What bounds the analyzer: see the `Limits` fields of the same names; `threshold` is `WORKER_THRESHOLD`. */
export interface AnalyzerLimits extends Pick<Limits, 'analyzeChars' | 'analyzerWorkers' | 'analyzerQueue' | 'analyzerHeapMb' | 'analyzerSeconds'> {
  /** Dumps shorter than this (characters) are analyzed inline. */
  readonly threshold: number;
}

/** Thrown when every analysis worker is busy and `analyzerQueue` analyses already wait: try again shortly. */
export class AnalyzerBusy extends Error {
  override name = 'AnalyzerBusy';
}

/** Thrown (and turned into a diagnostic by `analyzeGzip`) when an analysis needs more memory or time than its worker may take. */
export class AnalysisTooCostly extends Error {
  override name = 'AnalysisTooCostly';
}

/** Each form gzipped, at once. */
async function gzipForms(f: AnalysisForms<Buffer>): Promise<AnalysisForms> {
  const [analysis, views, keys] = await Promise.all([gzipAsync(f.analysis), gzipAsync(f.views), gzipAsync(f.keys)]);
  return { analysis, views, keys };
}

/** The gzipped JSON of `analyze(text, kind)` in each form, on the calling thread (small dumps, tests). */
export function analyzeGzipInline(text: string, kind: DocumentKind): Promise<AnalysisForms> {
  return gzipForms(analysisForms(analyze(text, kind)));
}

/**
 * The analysis of a dump that is stored without being indexed: its kind, size and lines, no
 * outline or values, and one error diagnostic that says why (`reason`), which the room shows.
 */
export function unindexedAnalysis(text: string, kind: DocumentKind, reason: string): Analysis {
  const { index } = analyze(text, DocumentKind.text);
  return { index: { ...index, kind }, diagnostics: [{ from: 0, to: 0, severity: 'error', message: `not indexed: ${reason}` }] };
}

/**
 * Runs `analyze` and gzips its JSON in every form it is served in (see `AnalysisForms`): inline
 * for small dumps, in worker threads for large ones (a 50 MB HLO dump takes seconds, which must
 * not stall sync sockets). Also splits analyses stored before the parts existed.
 *
 * Bounded so that one upload cannot starve the rest: at most `analyzerWorkers` analyses run at
 * once (idle workers are reused), at most `analyzerQueue` wait (one more throws `AnalyzerBusy`),
 * each worker's heap is capped at `analyzerHeapMb` and each analysis at `analyzerSeconds`; a dump
 * that passes either cap, or is longer than `analyzeChars`, is stored unindexed with a diagnostic
 * (`unindexedAnalysis`), not lost. A worker that fails is terminated and replaced.
 */
export class Analyzer {
  private readonly limits: AnalyzerLimits;
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  /** Analyses waiting for a worker; each is handed its slot by the one that finishes. */
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private nextId = 1;

  constructor(
    private readonly log: Logger,
    limits: Partial<AnalyzerLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, threshold: WORKER_THRESHOLD, ...limits };
  }

  /** The gzipped JSON of `analyze(text, kind)` in each form; a dump too big or too costly gets `unindexedAnalysis`. Throws `AnalyzerBusy`. */
  async analyzeGzip(text: string, kind: DocumentKind): Promise<AnalysisForms> {
    const { analyzeChars, threshold } = this.limits;
    if (text.length > analyzeChars) return this.unindexed(text, kind, `the dump has ${text.length} characters, more than the ${analyzeChars} the server indexes (SEAM_ANALYZE_CHARS)`);
    if (text.length < threshold) return analyzeGzipInline(text, kind);
    try {
      return (await this.inWorker({ text, kind })) as AnalysisForms;
    } catch (err) {
      if (!(err instanceof AnalysisTooCostly)) throw err;
      this.log.warn({ chars: text.length, kind, reason: err.message }, 'dump stored unindexed');
      return this.unindexed(text, kind, err.message);
    }
  }

  /** The gzipped views and keys parts of a gzipped whole analysis (always off the event loop: it may be 70 MB of JSON). Throws `AnalyzerBusy`. */
  async partsGzip(analysisGzip: Uint8Array): Promise<AnalysisParts> {
    return (await this.inWorker({ analysisGzip })) as AnalysisParts;
  }

  private unindexed(text: string, kind: DocumentKind, reason: string): Promise<AnalysisForms> {
    return gzipForms(analysisForms(unindexedAnalysis(text, kind, reason)));
  }

  private async inWorker(job: { text: string; kind: DocumentKind } | { analysisGzip: Uint8Array }): Promise<Partial<AnalysisForms>> {
    await this.acquire();
    try {
      return await this.exchange(job);
    } finally {
      this.release();
    }
  }

  /** Takes a worker slot, waiting in the queue when all are taken; throws `AnalyzerBusy` when the queue is full. */
  private acquire(): Promise<void> | void {
    if (this.active < this.limits.analyzerWorkers) {
      this.active += 1;
      return;
    }
    if (this.waiting.length >= this.limits.analyzerQueue) {
      throw new AnalyzerBusy(`the analyzer is busy: ${this.active} dumps are being indexed and ${this.waiting.length} wait; try again shortly`);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the next waiting analysis, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }

  /** Runs one job on an idle (or new) worker, within the time and heap caps. */
  private exchange(job: { text: string; kind: DocumentKind } | { analysisGzip: Uint8Array }): Promise<Partial<AnalysisForms>> {
    const { analyzerSeconds, analyzerHeapMb } = this.limits;
    const worker = this.idle.pop() ?? this.startWorker();
    const id = this.nextId++;
    this.busy.add(worker);
    return new Promise((resolve, reject) => {
      const finish = (result: { forms: Partial<AnalysisForms> } | { err: Error; kill: boolean }): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.busy.delete(worker);
        if ('forms' in result) {
          this.idle.push(worker);
          return resolve(result.forms);
        }
        if (result.kill) void worker.terminate();
        else this.idle.push(worker);
        reject(result.err);
      };
      const onMessage = (msg: AnalyzerReply): void => {
        if (msg.id !== id) return;
        finish(msg.forms ? { forms: msg.forms } : { err: new Error(`analysis failed: ${msg.error ?? 'unknown error'}`), kill: false });
      };
      const onError = (err: Error & { code?: string }): void => {
        const oom = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
        finish({ err: oom ? new AnalysisTooCostly(`indexing needed more than the ${analyzerHeapMb} MB of memory an analysis may take (SEAM_ANALYZER_HEAP_MB)`) : err, kill: true });
      };
      const onExit = (code: number): void => finish({ err: new Error(`analysis worker exited with ${code}`), kill: true });
      const timer = setTimeout(() => {
        finish({ err: new AnalysisTooCostly(`indexing took longer than the ${analyzerSeconds} s an analysis may take (SEAM_ANALYZER_S)`), kill: true });
      }, analyzerSeconds * 1000);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ id, ...job } satisfies AnalyzerJob);
    });
  }

  private startWorker(): Worker {
    const worker = startAnalysisWorker(new URL('./analyze-worker.ts', import.meta.url), undefined, { ...ANALYSIS_WORKER_LIMITS, maxOldGenerationSizeMb: this.limits.analyzerHeapMb });
    worker.unref();
    // Errors of a job's worker are that job's; this one keeps an error between jobs from throwing.
    worker.on('error', (err) => this.log.error({ err }, 'analysis worker failed'));
    worker.on('exit', () => {
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return worker;
  }

  /** Stops every worker; analyses under way fail. */
  async close(): Promise<void> {
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }
}
