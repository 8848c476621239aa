import type { Analysis } from '@seam/shared/ir';
import type { DocumentKind } from '@seam/shared/model';
import type { AnalyzeRequest } from './analysis.worker';

/** Kinds the IR core indexes; others get no analysis. */
export const ANALYZED_KINDS: ReadonlySet<DocumentKind> = new Set(['jaxpr', 'stablehlo', 'hlo', 'hlo-opt']);

/**
 * Where a document's analysis comes from: the index the server stored at ingest (one HTTP request,
 * cached by the browser since it is immutable), or, for texts the server has not indexed, the IR
 * core in a Web Worker. Each document is analyzed once per session.
 */
export class AnalysisSource {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (a: Analysis) => void>();
  private readonly cache = new Map<string, Promise<Analysis>>();

  constructor(
    private readonly base: string,
    private readonly roomId: string,
    private readonly token: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  /** The stored analysis of a dump; falls back to the worker when the server has none for it. */
  forDocument(docId: string, kind: DocumentKind, text: () => string | null): Promise<Analysis> {
    const hit = this.cache.get(docId);
    if (hit) return hit;
    const p = this.fetchStored(docId).then((a) => {
      if (a) return a;
      const t = text();
      if (t === null) throw new Error('the analysis is not available');
      return this.inWorker(t, kind);
    });
    this.cache.set(docId, p);
    p.catch(() => this.cache.delete(docId));
    return p;
  }

  private async fetchStored(docId: string): Promise<Analysis | null> {
    const url = `${this.base}/api/rooms/${encodeURIComponent(this.roomId)}/documents/${encodeURIComponent(docId)}/analysis`;
    const res = await this.fetcher(url, { headers: { Authorization: `Bearer ${this.token}` } });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`analysis request answered ${res.status}`);
    return (await res.json()) as Analysis;
  }

  /** Analyzes a text in the worker (notes, editable texts, or dumps the server could not index). */
  inWorker(text: string, kind: DocumentKind): Promise<Analysis> {
    if (!this.worker) {
      this.worker = new Worker(new URL('./analysis.worker.ts', import.meta.url), { type: 'module' });
      this.worker.onmessage = (e: MessageEvent<{ id: number; analysis: Analysis }>) => {
        const done = this.pending.get(e.data.id);
        this.pending.delete(e.data.id);
        done?.(e.data.analysis);
      };
    }
    const id = this.nextId++;
    const req: AnalyzeRequest = { id, text, kind };
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker?.postMessage(req);
    });
  }

  /** Stops the worker; pending requests are dropped with it. */
  destroy(): void {
    this.worker?.terminate();
    this.worker = null;
    this.pending.clear();
  }
}
