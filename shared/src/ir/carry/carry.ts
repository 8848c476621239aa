import { quoteOf, type Annotation } from '../../model/annotation';
import { DocumentKind, type DocumentMeta } from '../../model/document';
import { linesOf, mapLines } from './line-map';
import { findQuote, placeAnnotation, type Placement } from './place';

/**
 * Most annotations one capture carries over from the capture it re-runs; the rest stay on the
 * previous capture only (where they are, nothing is lost) and are counted as not carried.
 */
export const MAX_CARRIED = 1000;

/**
 * Pairs the documents of a capture with those of the capture that re-runs it: each layer (kind)
 * with the same layer, by title among several of one kind (`mlp: cost analysis`), else in order.
 * Traces are not paired: a trace is a measurement of one run, not a text whose lines match.
 * Returns the new document for each old document id that has one.
 */
export function pairDocuments(prev: readonly DocumentMeta[], next: readonly DocumentMeta[]): Map<string, DocumentMeta> {
  const out = new Map<string, DocumentMeta>();
  const used = new Set<string>();
  for (const byTitle of [true, false]) {
    for (const p of prev) {
      if (p.kind === DocumentKind.trace || out.has(p.id)) continue;
      const n = next.find((d) => !used.has(d.id) && d.kind === p.kind && (!byTitle || d.title === p.title));
      if (!n) continue;
      out.set(p.id, n);
      used.add(n.id);
    }
  }
  return out;
}

/** The copy of one annotation on the new document, and the mark saying where it came from. */
export interface CarryContext {
  /** The new document's id. */
  readonly docId: string;
  /** The previous capture's id, recorded in each copy's `carried` mark. */
  readonly captureId: string;
  /** Makes a fresh annotation id. */
  readonly newId: () => string;
}

/**
 * Carries the annotations of one document of a previous capture (`prevText`) to the same layer of
 * the capture that re-ran it (`nextText`): each is copied (kind, body, author, time, replies,
 * resolved kept) onto its matched range (see `placeAnnotation`), or detached at 0 with the
 * original's quote when nothing matched (one that was detached already is placed by its quote only),
 * with `carried` naming the original. Trace anchors, and
 * sizes measured on the old dump (`instruction`, `bytes`, `traffic`), are not copied. Pure; the
 * originals are not changed.
 */
export function carryDocument(prevText: string, nextText: string, kind: DocumentKind, annotations: readonly Annotation[], ctx: CarryContext): Annotation[] {
  if (annotations.length === 0) return [];
  const prev = linesOf(prevText);
  const next = linesOf(nextText);
  const map = mapLines(prev, next, kind);
  return annotations.map((a) => {
    // One already detached (carried before, with nothing matched) sits at 0: only its quote can place it.
    const found = a.carried?.detached === true ? findQuote(next, a.quote) : null;
    const placed: Placement = a.carried?.detached !== true ? placeAnnotation(prev, next, map, a) : found ? { detached: false, ...found } : { detached: true };
    const range = placed.detached ? { from: 0, to: 0, quote: a.quote } : { from: placed.from, to: placed.to, quote: quoteOf(nextText, placed.from, placed.to) };
    return {
      id: ctx.newId(), docId: ctx.docId, ...range, kind: a.kind, body: a.body, author: a.author, createdAt: a.createdAt,
      resolved: a.resolved, replies: a.replies,
      carried: { annotationId: a.id, docId: a.docId, captureId: ctx.captureId, detached: placed.detached },
      ...(a.editedAt !== undefined ? { editedAt: a.editedAt } : {}),
    };
  });
}
