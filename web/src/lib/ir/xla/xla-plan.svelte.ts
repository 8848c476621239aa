import { AllocationLookup, mergeAssignments, parseBufferAssignment, passSequence, type AnalysisViews, type BufferAssignment, type PassRow } from '@seam/shared/ir';
import type { DocumentMeta } from '@seam/shared/model';
import { fetchViews } from '../../analysis/stored-analysis';
import { assignmentDocsFor, hloCandidatesFor, isPlanText, moduleNameOf, namesModule, passLabel } from './plan-docs';

type Entry =
  | { readonly state: 'loading' }
  | { readonly state: 'ready'; readonly views: AnalysisViews }
  /** A live-range or used-values file the room stored as plain text, read here. */
  | { readonly state: 'parsed'; readonly assignment: BufferAssignment }
  | { readonly state: 'failed'; readonly message: string };

/** Plain-text plan files longer than this are not read into the page. */
const MAX_PLAN_TEXT = 8 * 1024 * 1024;

/** At most this many views parts are fetched at once (a module group may hold a hundred pass dumps). */
const CONCURRENT = 4;

/**
 * XLA's own plan as the room's views read it: the stored views parts of buffer assignments, of the
 * optimized HLO they describe and of a module group's pass dumps, fetched once each. `want` starts
 * the fetches (call it from an effect); the readers only read what has arrived.
 */
export class XlaPlanState {
  private entries = $state.raw<Record<string, Entry>>({});
  private readonly queue: DocumentMeta[] = [];
  private running = 0;
  private readonly lookups = new Map<string, AllocationLookup | null>();

  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly base = '',
  ) {}

  /**
   * Starts fetching the views parts of `docs` not fetched yet; a live-range or used-values file
   * stored as plain text (see `isPlanText`) is read and parsed here instead.
   */
  want(docs: readonly DocumentMeta[]): void {
    const fresh = docs.filter((d) => !this.entries[d.id]);
    if (fresh.length === 0) return;
    const next = { ...this.entries };
    for (const d of fresh) next[d.id] = { state: 'loading' };
    this.entries = next;
    this.queue.push(...fresh);
    this.pump();
  }

  private pump(): void {
    while (this.running < CONCURRENT && this.queue.length > 0) {
      const d = this.queue.shift() as DocumentMeta;
      const id = d.id;
      this.running++;
      const path = `${this.base}/api/rooms/${encodeURIComponent(this.roomId)}/documents/${encodeURIComponent(id)}`;
      const read: Promise<Entry> = isPlanText(d)
        ? this.parsedText(`${path}/text`, d.bytes)
        : fetchViews({ url: `${path}/analysis`, token: this.token }).then((views) => (views ? { state: 'ready', views } : { state: 'failed', message: 'no analysis is stored for this document' }));
      read
        .then(
          (e) => this.set(id, e),
          (e: unknown) => this.set(id, { state: 'failed', message: e instanceof Error ? e.message : String(e) }),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  private async parsedText(url: string, bytes: number): Promise<Entry> {
    if (bytes > MAX_PLAN_TEXT) return { state: 'failed', message: `the file has ${bytes} bytes, more than the ${MAX_PLAN_TEXT} read into the page` };
    const res = await fetch(url, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) return { state: 'failed', message: `the text request answered ${res.status}` };
    return { state: 'parsed', assignment: parseBufferAssignment(await res.text()).ast };
  }

  private set(id: string, e: Entry): void {
    this.entries = { ...this.entries, [id]: e };
  }

  /** The views part of `docId`, once it has arrived. */
  views(docId: string): AnalysisViews | undefined {
    const e = this.entries[docId];
    return e?.state === 'ready' ? e.views : undefined;
  }

  /** The buffer assignment (or part of one) document `docId` holds, once read. */
  assignment(docId: string): BufferAssignment | undefined {
    const e = this.entries[docId];
    return e?.state === 'parsed' ? e.assignment : e?.state === 'ready' ? e.views.index.xla?.bufferAssignment : undefined;
  }

  /** Why `docId`'s views part could not be read, if it could not. */
  failure(docId: string): string | undefined {
    const e = this.entries[docId];
    return e?.state === 'failed' ? e.message : undefined;
  }

  /**
   * The allocations of the buffer assignment(s) `docs` (one module's, merged), once all have
   * arrived; null while loading or when none holds allocations. Built once per set of documents.
   */
  lookup(docs: readonly DocumentMeta[]): AllocationLookup | null {
    if (docs.length === 0) return null;
    const parts = docs.map((d) => this.assignment(d.id));
    if (docs.some((d) => this.entries[d.id] === undefined || this.entries[d.id]?.state === 'loading')) return null;
    const key = docs.map((d) => d.id).join('/');
    let l = this.lookups.get(key);
    if (l === undefined) {
      const merged = mergeAssignments(parts.filter((p) => p !== undefined));
      l = merged ? new AllocationLookup(merged) : null;
      this.lookups.set(key, l);
    }
    return l;
  }

  /** The buffer-assignment documents of optimized HLO `hlo`, given its views (for its module name). */
  assignmentsOf(docs: readonly DocumentMeta[], hlo: DocumentMeta, hloViews: { readonly outline: AnalysisViews['index']['outline'] } | null): DocumentMeta[] {
    return assignmentDocsFor(docs, hlo, hloViews ? moduleNameOf(hloViews.outline) : null);
  }

  /**
   * The optimized HLO a buffer assignment describes, among `candidates` whose views have arrived:
   * the one whose `HloModule` the assignment's module or title names, else the one defining the
   * most of its values.
   */
  hloOf(assignment: DocumentMeta, candidates: readonly DocumentMeta[]): DocumentMeta | undefined {
    const ready = candidates.filter((c) => this.views(c.id));
    const named = ready.find((c) => {
      const name = moduleNameOf(this.views(c.id)?.index.outline ?? []);
      return name !== null && (assignment.module ? assignment.module.name === name : namesModule(assignment.title, name));
    });
    if (named) return named;
    const values = new Set(this.views(assignment.id)?.index.xla?.bufferAssignment?.allocations.flatMap((a) => a.values.map((v) => v.name)) ?? []);
    let best: DocumentMeta | undefined;
    let bestHits = 0;
    for (const c of ready) {
      const names = this.views(c.id)?.index.values.names.split('\n') ?? [];
      const hits = names.filter((n) => values.has(n)).length;
      if (hits > bestHits) [best, bestHits] = [c, hits];
    }
    return best;
  }

  /** `hloCandidatesFor`, for a view to `want` their views. */
  hloCandidates(docs: readonly DocumentMeta[], assignment: DocumentMeta): DocumentMeta[] {
    return hloCandidatesFor(docs, assignment);
  }

  /**
   * The pass sequence of `passes` (in pass order) once every views part has arrived or failed, with
   * the documents of its rows (a pass dump that could not be read has none); how many have arrived, meanwhile.
   */
  passRows(passes: readonly DocumentMeta[]): { readonly rows: PassRow[] | null; readonly docs: DocumentMeta[]; readonly loaded: number } {
    const docs = passes.filter((d) => this.views(d.id)?.index.xla?.step !== undefined);
    const pending = passes.filter((d) => this.entries[d.id]?.state !== 'failed' && this.views(d.id) === undefined).length;
    if (pending > 0) return { rows: null, docs, loaded: passes.length - pending };
    const steps = docs.map((d) => ({ label: passLabel(d), step: this.views(d.id)?.index.xla?.step as NonNullable<AnalysisViews['index']['xla']>['step'] & object }));
    return { rows: passSequence(steps), docs, loaded: passes.length };
  }
}
