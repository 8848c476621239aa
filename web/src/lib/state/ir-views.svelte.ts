import { groupOf, isPassDump, layerOf, type DocumentMeta, type Layer } from '@seam/shared/model';
import type { RoomApi } from '../room/api';
import { ANALYZED_KINDS, AnalysisSource } from '../analysis/analysis-source';
import { CrossLayer } from '../analysis/cross-layer';
import type { ViewAnalysis } from '../analysis/worker-protocol';
import type { OpenText } from './documents.svelte';
import { hloCandidates } from '../trace/hlo-target';
import { TraceApi } from '../trace/trace-api';
import type { OpAggregate } from '@seam/shared/trace';
import type { OpTimes } from '../editor/ir/op-times';
import { paneForDocument } from './pane-choice';
import { completeLayers, LAYER_NAMES, missingNote, paneLayers, splitPanes, viewGroup, type ViewGroup } from './view-group';

/** A document's analysis as the views see it. */
export type AnalysisEntry =
  | { readonly state: 'loading' }
  | { readonly state: 'ready'; readonly analysis: ViewAnalysis }
  | { readonly state: 'failed'; readonly message: string };

/** A line someone points at in a pane: the local pointer, or the presenter's (through awareness). */
export interface LineRef {
  readonly docId: string;
  readonly line: number;
}

/** Most panes side by side. */
export const MAX_PANES = 3;

/** How long the pointer rests on a line before the other panes scroll to its counterparts: a sweep over lines moves nothing. */
export const HOVER_SETTLE_MS = 250;

/**
 * The IR views of one room: each document's analysis (the stored index, or the worker), the split
 * panes and their texts, the line hovered in a pane and the counterparts it lights up in the others,
 * and the mapping of the three layers. Layers are paired within one group only (a capture, a module
 * of a dump folder, or the loose documents): the group of the first layer pane in split view, else
 * of the open document.
 */
export class IrViewsState {
  analyses = $state.raw<Record<string, AnalysisEntry>>({});
  texts = $state.raw<Record<string, OpenText>>({});
  split = $state(false);
  panes = $state.raw<string[]>([]);
  hover = $state.raw<LineRef | null>(null);
  /** The presenter's hovered line, for followers. */
  remoteHover = $state.raw<LineRef | null>(null);
  mappingOpen = $state(false);
  /** A range to reveal in a pane (Mapping rows, Spills rows); `at` makes repeats distinct. */
  reveal = $state.raw<{ docId: string; from: number; to: number; at: number; focus?: boolean } | null>(null);
  /** The measured op times of a trace linked to each optimized HLO document, by document id. */
  opTimes = $state.raw<Record<string, OpTimes>>({});
  /**
   * The line the other panes scroll to the counterparts of: a hovered line once the pointer rests
   * on it, or a line the person selects; `at` makes each one distinct.
   */
  settled = $state.raw<(LineRef & { readonly at: number }) | null>(null);
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private settles = 0;
  /** Called when the local hovered line changes, to tell the room (presenters share it). */
  onHoverChange: (h: LineRef | null) => void = () => {};
  private readonly source: AnalysisSource;
  /** The last three layers linked, under the key of their document ids. */
  private linked = $state.raw<{ key: string; x: CrossLayer | null } | null>(null);

  constructor(
    private readonly api: RoomApi,
    private readonly roomId: string,
    private readonly token: string,
    private readonly docs: () => readonly DocumentMeta[],
    private readonly base = '',
    /** The document open outside split view. */
    private readonly current: () => string | null = () => null,
  ) {
    this.source = new AnalysisSource(base, roomId, token, api.firstDocument(roomId, token));
  }

  private metaOf(docId: string): DocumentMeta | undefined {
    return this.docs().find((d) => d.id === docId);
  }

  /** Starts loading the analysis of `docId` once; `text` gives the text for the worker fallback. */
  ensureAnalysis(docId: string, text: () => string | null = () => this.textOf(docId)): void {
    const meta = this.metaOf(docId);
    if (!meta || !ANALYZED_KINDS.has(meta.kind) || this.analyses[docId]) return;
    this.ensureOpTimes(meta);
    this.analyses = { ...this.analyses, [docId]: { state: 'loading' } };
    this.source.forDocument(docId, meta.kind, text).then(
      (analysis) => {
        this.analyses = { ...this.analyses, [docId]: { state: 'ready', analysis } };
        this.link();
      },
      (e: unknown) => (this.analyses = { ...this.analyses, [docId]: { state: 'failed', message: e instanceof Error ? e.message : String(e) } }),
    );
  }

  /** For an optimized HLO whose capture or module group holds a trace, fetches that trace's op times once (for the hover). */
  private ensureOpTimes(meta: DocumentMeta): void {
    const trace = meta.kind === 'hlo-opt' ? groupOf(this.docs(), meta).find((d) => d.kind === 'trace' && d.id !== meta.id) : undefined;
    if (!trace || this.opTimes[meta.id]) return;
    new TraceApi(this.base, this.roomId, trace.id, this.token).ops().then(
      (ops) => this.setOpTimes(meta.id, ops),
      () => {},
    );
  }

  /** The op times of a trace of `docId` (a trace view beside it says them too; see `ensureOpTimes`). */
  setOpTimes(docId: string, ops: readonly OpAggregate[]): void {
    if (this.opTimes[docId]?.size === ops.length && ops.every((o) => this.opTimes[docId]?.get(o.op)?.totalUs === o.totalUs)) return;
    this.opTimes = { ...this.opTimes, [docId]: new Map(ops.map((o) => [o.op, o])) };
  }

  /** The analysis of `docId` when it has arrived. */
  analysisOf(docId: string | null): ViewAnalysis | null {
    const e = docId ? this.analyses[docId] : undefined;
    return e?.state === 'ready' ? e.analysis : null;
  }

  /** The text of a pane's document when loaded. */
  textOf(docId: string): string | null {
    const t = this.texts[docId];
    return t?.state === 'ready' ? t.text : null;
  }

  /** Loads a document's text for a pane (dumps are immutable; the browser caches them). */
  ensureText(docId: string): void {
    if (this.texts[docId]) return;
    this.texts = { ...this.texts, [docId]: { state: 'loading', docId } };
    this.api.text(this.roomId, this.token, docId).then(
      (text) => {
        this.texts = { ...this.texts, [docId]: { state: 'ready', docId, text } };
        this.ensureAnalysis(docId);
        this.link();
      },
      (e: unknown) => (this.texts = { ...this.texts, [docId]: { state: 'failed', docId, message: e instanceof Error ? e.message : String(e) } }),
    );
  }

  /**
   * Opens split view on the group of `current`: its jaxpr, StableHLO and HLO (optimized preferred),
   * else `current` and the next documents of its group (see `splitPanes`); never another group's.
   */
  openSplit(current: string | null): void {
    const list = this.docs();
    const cur = list.find((d) => d.id === current) ?? list[0];
    if (!cur) return;
    if (cur.kind === 'trace') {
      // A trace opens beside the optimized HLO its ops link to (see `hloCandidates`).
      const hlo = hloCandidates(cur, list)[0];
      this.split = true;
      this.setPanes(hlo ? [hlo.id, cur.id] : [cur.id]);
      return;
    }
    const group = viewGroup(list, cur.id);
    this.split = true;
    this.setPanes(group ? splitPanes(group, cur.id, MAX_PANES) : [cur.id]);
  }

  private paneDocs(): DocumentMeta[] {
    return this.panes.map((id) => this.metaOf(id)).filter((d): d is DocumentMeta => d !== undefined);
  }

  /**
   * The group the views pair layers within: in split view that of the first pane holding a layer
   * (the first pane when none does), else that of the open document; null with nothing open.
   */
  readonly group = $derived.by((): ViewGroup | null => {
    const panes = this.split ? this.paneDocs() : [];
    const anchor = panes.find((d) => layerOf(d.kind) !== null && !isPassDump(d)) ?? panes[0];
    const id = anchor?.id ?? this.current();
    return viewGroup(this.docs(), id, id);
  });

  /** Shows `docIds` side by side (at most three). */
  setPanes(docIds: readonly string[]): void {
    this.panes = docIds.slice(0, MAX_PANES);
    // A trace pane reads its trace in pieces; its text may be a gigabyte.
    for (const id of this.panes) if (this.metaOf(id)?.kind !== 'trace') this.ensureText(id);
    const l = this.layerDocs;
    if (l) this.prefetchKeys(l);
    this.link();
  }

  /** Replaces the document of pane `i`. */
  setPane(i: number, docId: string): void {
    const next = [...this.panes];
    next[i] = docId;
    this.setPanes(next);
  }

  /**
   * The documents of the three layers within {@link group}: those in the panes when they show all
   * three, else the group's (optimized HLO preferred), so that a follower without split view still
   * sees counterparts. Null when the group lacks a layer: another group's is never borrowed.
   */
  readonly layerDocs = $derived.by((): Record<Layer, string> | null => {
    const g = this.group;
    return (this.split ? paneLayers(g, this.paneDocs()) : null) ?? completeLayers(g);
  });

  /**
   * Starts loading what linking the three layers needs (their analyses, their cross-layer keys and
   * the jaxpr text); called when linking is asked for, and as soon as a person shows they are about
   * to ask (pointing at Split view or Mapping), so that the keys of a large dump are on their way
   * before the click.
   */
  prepareLinking(): void {
    const l = this.layerDocs;
    if (!l) return;
    this.ensureText(l.jaxpr);
    this.ensureAnalysis(l.stablehlo);
    this.ensureAnalysis(l.hlo);
    this.prefetchKeys(l);
    this.link();
  }

  /** Starts fetching the cross-layer keys of those of the three documents whose analyses are on their way. */
  private prefetchKeys(l: Record<Layer, string>): void {
    for (const id of [l.jaxpr, l.stablehlo, l.hlo]) this.source.prefetchKeys(id);
  }

  /**
   * Links the three layers in the worker, once their analyses and the jaxpr text are in; called
   * whenever one of them arrives or the panes change. Each set of documents is linked once.
   */
  private link(): void {
    const l = this.layerDocs;
    if (!l) return;
    const key = `${l.jaxpr}/${l.stablehlo}/${l.hlo}`;
    const h = this.analysisOf(l.hlo);
    const text = this.textOf(l.jaxpr);
    if (this.linked?.key === key || !this.analysisOf(l.jaxpr) || !this.analysisOf(l.stablehlo) || !h || text === null) return;
    this.linked = { key, x: null };
    this.source.link(l.jaxpr, l.stablehlo, l.hlo).then(
      (r) => {
        if (this.linked?.key === key) this.linked = { key, x: new CrossLayer(r, h.index.fusions, text) };
      },
      () => {
        if (this.linked?.key === key) this.linked = null;
      },
    );
  }

  /** The three layers joined, once linked (see `link`). */
  readonly crossLayer = $derived.by((): CrossLayer | null => {
    const l = this.layerDocs;
    return l && this.linked?.key === `${l.jaxpr}/${l.stablehlo}/${l.hlo}` ? this.linked.x : null;
  });

  /** Why the mapping cannot be shown yet, or null when it can: which layer the group lacks, if one. */
  readonly mappingStatus = $derived.by((): string | null => {
    const g = this.group;
    if (!g) return `Open a dump to map its group's ${Object.values(LAYER_NAMES).join(', ')}.`;
    const missing = missingNote(g);
    if (missing) return `${missing}: Mapping pairs the layers of one group and borrows none from another.`;
    return this.crossLayer ? null : 'Analyzing the three layers…';
  });

  /** The local pointer is over `line` of `docId` (null: it left the pane). */
  setHover(docId: string, line: number | null): void {
    const next = line === null ? (this.hover?.docId === docId ? null : this.hover) : { docId, line };
    if (next?.docId === this.hover?.docId && next?.line === this.hover?.line) return;
    this.hover = next;
    this.onHoverChange(next);
    clearTimeout(this.settleTimer);
    if (next) this.settleTimer = setTimeout(() => this.settle(next), HOVER_SETTLE_MS);
  }

  /** The person selected (or put the cursor on) `line` of `docId`: the other panes scroll to its counterparts at once. */
  selectLine(docId: string, line: number): void {
    clearTimeout(this.settleTimer);
    this.settle({ docId, line });
  }

  private settle(at: LineRef): void {
    this.settles += 1;
    this.settled = { docId: at.docId, line: at.line, at: this.settles };
  }

  /**
   * The line pane `docId` should bring into view: the first counterpart of the settled line (see
   * {@link settled}), never in the pane the person points in; null when there is none.
   */
  revealFor(docId: string): { line: number; at: number } | null {
    const s = this.settled;
    if (!s || s.docId === docId || this.hover?.docId === docId) return null;
    const lines = this.counterparts(s, docId);
    return lines.length > 0 ? { line: Math.min(...lines), at: s.at } : null;
  }

  /**
   * Shows `docId`, chosen from the document list, in split view: in the pane already showing it or
   * the pane of its kind (see `paneForDocument`). False when no pane holds its kind: the caller
   * leaves split view so that the document shows alone.
   */
  showInPane(docId: string): boolean {
    const meta = this.metaOf(docId);
    if (!meta) return false;
    const i = paneForDocument(this.panes.map((id) => ({ id, kind: this.metaOf(id)?.kind })), meta);
    if (i < 0) return false;
    if (this.panes[i] !== docId) this.setPane(i, docId);
    return true;
  }

  /** Lines of `docId` to light up for the hovered line (local first, else the presenter's). */
  linkedFor(docId: string): { lines: number[]; source: 'local' | 'remote' } {
    const h = this.hover ?? this.remoteHover;
    const source = this.hover ? 'local' : 'remote';
    if (!h) return { lines: [], source };
    if (h.docId === docId) return { lines: source === 'remote' ? [h.line] : [], source };
    return { lines: this.counterparts(h, docId), source };
  }

  /** The lines of `docId` joined to line `h` of another document; none unless both are among the three layers joined. */
  private counterparts(h: LineRef, docId: string): number[] {
    const x = this.crossLayer;
    const l = this.layerDocs;
    // Only the three documents joined have counterparts: not another group's, not HLO before optimization when the optimized one is joined.
    const fromLayer = l && (Object.keys(l) as Layer[]).find((k) => l[k] === h.docId);
    const toLayer = l && (Object.keys(l) as Layer[]).find((k) => l[k] === docId);
    if (!x || !fromLayer || !toLayer) return [];
    return [...x.counterparts(fromLayer, h.line)[toLayer]];
  }

  destroy(): void {
    clearTimeout(this.settleTimer);
    this.source.destroy();
  }
}
