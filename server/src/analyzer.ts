import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { analyze } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import type { Logger } from 'pino';

const gzipAsync = promisify(gzip);

/** Dumps at least this long (characters) are analyzed off the event loop; about 150 ms of work. */
export const WORKER_THRESHOLD = 512 * 1024;

type Pending = { resolve: (gz: Uint8Array) => void; reject: (err: Error) => void };

/**
 * Runs `analyze` and gzips its JSON: inline for small dumps, in one reused worker thread for large
 * ones (a 50 MB HLO dump takes seconds, which must not stall sync sockets). A worker that dies
 * fails its pending jobs and is replaced on the next call.
 */
export class Analyzer {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly log: Logger,
    private readonly threshold = WORKER_THRESHOLD,
  ) {}

  /** The gzipped JSON of `analyze(text, kind)`. */
  async analyzeGzip(text: string, kind: DocumentKind): Promise<Uint8Array> {
    if (text.length < this.threshold) return gzipAsync(Buffer.from(JSON.stringify(analyze(text, kind)), 'utf8'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, text, kind });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // The worker is TypeScript: register tsx's loader in it, then import the worker module.
    const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL('./analyze-worker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
    const worker = new Worker(boot, { eval: true });
    worker.unref();
    worker.on('message', (msg: { id: number; gz?: Uint8Array; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.gz) p.resolve(msg.gz);
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
