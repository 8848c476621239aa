import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { analyze } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import type { Logger } from 'pino';
import { analysisForms, type AnalysisForms } from './analysis-forms';

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
 * it), with the analysis heap settings `ANALYSIS_WORKER_LIMITS`; `workerData` is handed to it.
 * The analyzer's own worker, and the IR benchmark's, which times `analyze` as the product runs it.
 */
export function startAnalysisWorker(entry: URL, workerData?: unknown): Worker {
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, resourceLimits: ANALYSIS_WORKER_LIMITS, workerData });
}

/** The views and keys parts of an analysis, gzipped. */
export type AnalysisParts = Omit<AnalysisForms, 'analysis'>;

/** A job for the worker thread: index a dump, or split an analysis stored before the parts were. */
export type AnalyzerJob = { readonly id: number; readonly text: string; readonly kind: DocumentKind } | { readonly id: number; readonly analysisGzip: Uint8Array };

/** The worker thread's answer: the gzipped forms the job asked for, or why it failed. */
export type AnalyzerReply = { readonly id: number; readonly forms?: Partial<AnalysisForms>; readonly error?: string };

type Pending = { resolve: (forms: Partial<AnalysisForms>) => void; reject: (err: Error) => void };

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
 * Runs `analyze` and gzips its JSON in every form it is served in (see `AnalysisForms`): inline
 * for small dumps, in one reused worker thread for large ones (a 50 MB HLO dump takes seconds,
 * which must not stall sync sockets). Also splits analyses stored before the parts existed. A
 * worker that dies fails its pending jobs and is replaced on the next call.
 */
export class Analyzer {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly log: Logger,
    private readonly threshold = WORKER_THRESHOLD,
  ) {}

  /** The gzipped JSON of `analyze(text, kind)` in each form. */
  async analyzeGzip(text: string, kind: DocumentKind): Promise<AnalysisForms> {
    if (text.length < this.threshold) return analyzeGzipInline(text, kind);
    return (await this.inWorker({ text, kind })) as AnalysisForms;
  }

  /** The gzipped views and keys parts of a gzipped whole analysis (always off the event loop: it may be 70 MB of JSON). */
  async partsGzip(analysisGzip: Uint8Array): Promise<AnalysisParts> {
    return (await this.inWorker({ analysisGzip })) as AnalysisParts;
  }

  private inWorker(job: { text: string; kind: DocumentKind } | { analysisGzip: Uint8Array }): Promise<Partial<AnalysisForms>> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...job } satisfies AnalyzerJob);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startAnalysisWorker(new URL('./analyze-worker.ts', import.meta.url));
    worker.unref();
    worker.on('message', (msg: AnalyzerReply) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.forms) p.resolve(msg.forms);
      else p.reject(new Error(`analysis failed: ${msg.error ?? 'unknown error'}`));
    });
    const fail = (err: Error) => {
      this.log.error({ err }, 'analysis worker failed');
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0 || this.worker === worker) fail(new Error(`analysis worker exited with ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  /** Stops the worker, if any. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
