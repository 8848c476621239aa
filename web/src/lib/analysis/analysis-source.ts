import type { DocumentKind } from '@seam/shared/model';
import type { LinkResult, ViewAnalysis, WorkerReply, WorkerRequest } from './worker-protocol';

/** Kinds the IR core indexes; others get no analysis. */
export const ANALYZED_KINDS: ReadonlySet<DocumentKind> = new Set(['jaxpr', 'stablehlo', 'hlo', 'hlo-opt']);

type Ok = Extract<WorkerReply, { ok: true }>;
/** A request without its id, which `ask` assigns. */
type Ask = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Where a document's analysis comes from: the index the server stored at ingest, or, for texts the
 * server has not indexed, the IR core. Both run in one Web Worker, which fetches the stored views
 * part (9.3 MB of JSON for a 25 MB HLO dump, against 68 MB for the whole analysis) and posts back
 * the compact `ViewAnalysis`; the main thread never fetches or parses it, and the cross-layer keys
 * are fetched only to link layers. `first` is the id of the document opened first, known from the
 * navigation-start prefetch: its analysis is loaded as soon as it is known, beside its text,
 * rather than after it. Each document is analyzed once per session.
 */
export class AnalysisSource {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Ok) => void; reject: (e: Error) => void }>();
  private readonly cache = new Map<string, Promise<ViewAnalysis>>();
  private readonly prefetched = new Set<string>();
  private early: Promise<{ docId: string; loaded: Promise<Ok> } | null>;
  private destroyed = false;

  constructor(
    private readonly base: string,
    private readonly roomId: string,
    private readonly token: string,
    first: Promise<string | null> = Promise.resolve(null),
  ) {
    this.early = first.then(
      (docId) => {
        if (docId === null || this.destroyed) return null;
        const loaded = this.ask({ type: 'load', docId, url: this.urlOf(docId), token: this.token });
        // Its failure reaches whoever asks for this document (see `load`); nobody may ask.
        loaded.catch(() => {});
        return { docId, loaded };
      },
      () => null,
    );
  }

  private urlOf(docId: string): string {
    const path = `${this.base}/api/rooms/${encodeURIComponent(this.roomId)}/documents/${encodeURIComponent(docId)}/analysis`;
    return new URL(path, globalThis.location?.href).href;
  }

  /** The worker's answer to loading `docId`: the one started early for it (taken once), else a new request. */
  private async load(docId: string): Promise<Ok> {
    const e = await this.early;
    if (e?.docId === docId) {
      this.early = Promise.resolve(null);
      return e.loaded;
    }
    return this.ask({ type: 'load', docId, url: this.urlOf(docId), token: this.token });
  }

  /** The stored analysis of a dump; falls back to analyzing its text when the server has none for it. */
  forDocument(docId: string, kind: DocumentKind, text: () => string | null): Promise<ViewAnalysis> {
    const hit = this.cache.get(docId);
    if (hit) return hit;
    const p = this.load(docId).then((r) => {
      if (r.view) return r.view;
      const t = text();
      if (t === null) throw new Error('the analysis is not available');
      return this.analyzeText(docId, t, kind);
    });
    this.cache.set(docId, p);
    p.catch(() => this.cache.delete(docId));
    return p;
  }

  /** Analyzes a text in the worker (notes, editable texts, or dumps the server could not index). */
  async analyzeText(docId: string, text: string, kind: DocumentKind): Promise<ViewAnalysis> {
    const r = await this.ask({ type: 'analyze', docId, text, kind });
    if (!r.view) throw new Error('the worker answered without an analysis');
    return r.view;
  }

  /**
   * Starts fetching, in the worker, what linking `docId` will need (the keys part of a stored
   * analysis), once its analysis is in; a later `link` finds it there. Best effort: a failure
   * here is the link's to report.
   */
  prefetchKeys(docId: string): void {
    const loaded = this.cache.get(docId);
    if (!loaded || this.prefetched.has(docId)) return;
    this.prefetched.add(docId);
    loaded.then(() => this.ask({ type: 'prefetch', docId })).catch(() => this.prefetched.delete(docId));
  }

  /** Joins three documents already analyzed (by `forDocument`), in the worker that holds them. */
  async link(jaxpr: string, stablehlo: string, hlo: string): Promise<LinkResult> {
    const r = await this.ask({ type: 'link', jaxpr, stablehlo, hlo });
    if (!r.link) throw new Error('the worker answered without a mapping');
    return r.link;
  }

  private ask(req: Ask): Promise<Ok> {
    if (this.destroyed) return Promise.reject(new Error('the analysis worker is stopped'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./analysis.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      const p = this.pending.get(e.data.id);
      this.pending.delete(e.data.id);
      if (e.data.ok) p?.resolve(e.data);
      else p?.reject(new Error(e.data.message));
    };
    this.worker = worker;
    return worker;
  }

  /** Stops the worker; pending requests are dropped with it. */
  destroy(): void {
    this.destroyed = true;
    this.worker?.terminate();
    this.worker = null;
    this.pending.clear();
  }
}
