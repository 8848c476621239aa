import type { Annotation, AnnotationKind, TraceAnchor } from '@seam/shared/model';
import type { TrackColumns, WindowColumns } from '@seam/shared/trace';
import { idsWhere } from './event-columns';
import { LABEL_WIDTH, xOf, type TimelineRow } from './timeline-draw';
import type { TimeRange } from './timeline-model';

/** An annotation on a time range of the open trace, on the trace's clock. */
export interface RangeMark {
  readonly id: string;
  readonly kind: AnnotationKind;
  readonly fromUs: number;
  readonly toUs: number;
  readonly track?: string;
  readonly resolved: boolean;
}

/** An annotation on an HLO op of the open trace. */
export interface OpMark {
  readonly id: string;
  readonly kind: AnnotationKind;
  readonly op: string;
  readonly module: string;
}

/** The open trace's annotations, as bands (ranges, moved from the trace's start to its clock at `originUs`) and op marks. */
export function traceMarks(annotations: readonly Annotation[], docId: string, originUs: number): { ranges: RangeMark[]; ops: OpMark[] } {
  const ranges: RangeMark[] = [];
  const ops: OpMark[] = [];
  for (const a of annotations) {
    const t = a.trace;
    if (a.docId !== docId || !t) continue;
    if (t.type === 'op') ops.push({ id: a.id, kind: a.kind, op: t.op, module: t.module });
    else ranges.push({ id: a.id, kind: a.kind, fromUs: originUs + t.fromUs, toUs: originUs + t.toUs, resolved: a.resolved, ...(t.track ? { track: t.track } : {}) });
  }
  return { ranges, ops };
}

/** Whether an event of `op` in `module` is one of op mark `m`'s (an anchor with no module matches the op in any module). */
function isMarked(op: string | undefined, module: string | undefined, m: OpMark): boolean {
  return op === m.op && (!m.module || !module || module === m.module);
}

/** Calls `each` with every event of `data` whose op one of `marks` names (track columns, index, the first such mark), until it returns false. */
function forMarked(data: WindowColumns | null, marks: readonly OpMark[], each: (t: TrackColumns, i: number, m: OpMark) => boolean): void {
  if (!data || marks.length === 0) return;
  const named = new Set(marks.map((m) => m.op));
  const ids = idsWhere(data, (s) => named.has(s));
  const str = (id: number) => (id >= 0 ? data.strings[id] : undefined);
  for (const t of data.tracks) {
    for (let i = 0; i < t.start.length; i++) {
      if (!ids.has(t.op[i]!)) continue;
      const op = str(t.op[i]!);
      const module = str(t.module[i]!);
      const m = marks.find((x) => isMarked(op, module, x));
      if (m && !each(t, i, m)) return;
    }
  }
}

/** A marker on one event of an annotated op, in CSS pixels of the timeline. */
export interface OpMarker {
  readonly id: string;
  readonly kind: AnnotationKind;
  readonly x: number;
  readonly y: number;
  readonly w: number;
}

/** Most markers drawn at once: past it the view is too wide to tell them apart anyway. */
export const MAX_MARKERS = 400;

/** Markers on the visible events of the annotated ops, on their rows; at most {@link MAX_MARKERS}. */
export function opMarkers(data: WindowColumns | null, ops: readonly OpMark[], view: TimeRange, width: number, rows: readonly TimelineRow[]): OpMarker[] {
  if (ops.length === 0) return [];
  const yOf = new Map<number, number>();
  for (const r of rows) if (r.type === 'track') yOf.set(r.track.id, r.y);
  const out: OpMarker[] = [];
  forMarked(data, ops, (t, i, m) => {
    const y = yOf.get(t.track);
    if (y === undefined) return true;
    const x0 = Math.max(LABEL_WIDTH, xOf(t.start[i]!, view, width));
    const x1 = Math.min(width, xOf(t.start[i]! + t.dur[i]!, view, width));
    if (x1 < LABEL_WIDTH || x0 > width) return true;
    out.push({ id: m.id, kind: m.kind, x: x0, y: y + 1, w: Math.max(2, x1 - x0) });
    return out.length < MAX_MARKERS;
  });
  return out;
}

/**
 * Where to take the view to show an anchor: a range with a tenth of its span either side, or the
 * span of the op's loaded events likewise; `null` for an op none of whose events is loaded.
 */
export function revealView(anchor: TraceAnchor, originUs: number, data: WindowColumns | null): TimeRange | null {
  let from = Infinity;
  let to = -Infinity;
  if (anchor.type === 'range') {
    from = originUs + anchor.fromUs;
    to = originUs + anchor.toUs;
  } else {
    forMarked(data, [{ id: '', kind: 'note', op: anchor.op, module: anchor.module }], (t, i) => {
      from = Math.min(from, t.start[i]!);
      to = Math.max(to, t.start[i]! + t.dur[i]!);
      return true;
    });
    if (from > to) return null;
  }
  const pad = Math.max((to - from) / 10, 0.5);
  return { fromUs: from - pad, toUs: to + pad };
}
