import type { TraceAnchor } from './annotation-trace';

/** Annotation kinds, with the colours the UI uses for them everywhere. */
export const AnnotationKind = { fusion: 'fusion', spill: 'spill', note: 'note', question: 'question' } as const;
export type AnnotationKind = (typeof AnnotationKind)[keyof typeof AnnotationKind];
export const ANNOTATION_KINDS: readonly AnnotationKind[] = ['fusion', 'spill', 'note', 'question'];

export interface Author {
  readonly id: string;
  readonly name: string;
  readonly color: string;
}

/** The quote an anchor carries, so a moved or changed text is detected instead of silently re-pointed. */
export interface Quote {
  readonly prefix: string;
  readonly exact: string;
  readonly suffix: string;
}

export interface Reply {
  readonly id: string;
  readonly body: string;
  readonly author: Author;
  readonly createdAt: number;
  readonly editedAt?: number;
}

/**
 * Where a carried annotation came from: an annotation on an earlier capture's dump, placed on the
 * matched line of the capture that re-ran it. `detached` when nothing matched: it then sits at
 * offset 0 and keeps the original's quote, so nothing is lost.
 */
export interface Carried {
  /** The original annotation's id. */
  readonly annotationId: string;
  /** The document the original sits on. */
  readonly docId: string;
  /** The capture that document came from, when it came from one. */
  readonly captureId?: string;
  readonly detached: boolean;
}

/** An annotation as plain data: the JSON form of one value of the room document's `annotations` map. */
export interface Annotation {
  readonly id: string;
  readonly docId: string;
  readonly from: number;
  readonly to: number;
  readonly quote: Quote;
  readonly kind: AnnotationKind;
  readonly body: string;
  readonly author: Author;
  readonly createdAt: number;
  readonly resolved: boolean;
  readonly replies: readonly Reply[];
  /** Instruction or value name at the anchor, when the IR index knows it (e.g. `%fusion.3`). */
  readonly instruction?: string;
  /** Size in bytes of the marked value, when the analysis knew it (spills, fusion outputs). */
  readonly bytes?: number;
  /** Memory traffic in bytes the marked value causes (one write plus one read per consumer), for spills. */
  readonly traffic?: number;
  /**
   * On a trace document: the op or time range marked. `from` and `to` are then 0 and the quote
   * empty, so readers that predate it see an annotation at the start of the document.
   */
  readonly trace?: TraceAnchor;
  /** Set on an annotation carried over from an earlier capture's dump. */
  readonly carried?: Carried;
  readonly editedAt?: number;
}

/** Characters of context kept on each side of an anchor's exact text. */
export const QUOTE_CONTEXT = 32;

/** Builds the quote for `[from, to)` of `text`. */
export function quoteOf(text: string, from: number, to: number): Quote {
  return {
    prefix: text.slice(Math.max(0, from - QUOTE_CONTEXT), from),
    exact: text.slice(from, to),
    suffix: text.slice(to, to + QUOTE_CONTEXT),
  };
}

/** True when the text still holds the quoted range at the stored offsets. */
export function isAnchored(text: string, a: Pick<Annotation, 'from' | 'to' | 'quote'>): boolean {
  return a.from >= 0 && a.to <= text.length && a.from <= a.to && text.slice(a.from, a.to) === a.quote.exact;
}
