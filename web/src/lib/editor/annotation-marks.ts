import { RangeSet, RangeSetBuilder, StateEffect, StateField, type Extension, type Range } from '@codemirror/state';
import { Decoration, EditorView, GutterMarker, hoverTooltip, lineNumberMarkers, type DecorationSet, type Tooltip } from '@codemirror/view';
import { type Annotation, type AnnotationKind } from '@seam/shared/model';

/** Replaces the annotations shown in this editor (those of its document). */
export const setAnnotations = StateEffect.define<readonly Annotation[]>();

/** The annotation field's value: inline marks, one gutter glyph per line, and what could not anchor. */
export interface AnnotationMarks {
  readonly all: readonly Annotation[];
  readonly marks: DecorationSet;
  readonly glyphs: RangeSet<GutterMarker>;
  readonly detached: ReadonlySet<string>;
}

/** A glyph by kind, drawn by CSS on the line-number cell (`elementClass`), so the number stays visible. */
class KindGlyph extends GutterMarker {
  override readonly elementClass: string;
  constructor(
    readonly kind: AnnotationKind,
    readonly resolved: boolean,
  ) {
    super();
    this.elementClass = `cm-ann-glyph cm-ann-${kind}${resolved ? ' cm-ann-resolved' : ''}`;
  }
  override eq(other: GutterMarker): boolean {
    return other instanceof KindGlyph && other.kind === this.kind && other.resolved === this.resolved;
  }
}

type TextLike = { length: number; sliceString(from: number, to: number): string; lineAt(pos: number): { from: number } };

/** True when the document still holds the annotation's quoted text at its offsets (as `isAnchored`, without copying the text). */
export function anchoredIn(doc: TextLike, a: Pick<Annotation, 'from' | 'to' | 'quote'>): boolean {
  return a.from >= 0 && a.from <= a.to && a.to <= doc.length && doc.sliceString(a.from, a.to) === a.quote.exact;
}

const EMPTY: AnnotationMarks = { all: [], marks: Decoration.none, glyphs: RangeSet.empty, detached: new Set() };

/**
 * Builds the marks once per change of the annotation list (a sorted RangeSet), so scrolling costs
 * nothing extra; an annotation whose quote no longer matches the text is left out and listed as
 * detached instead of being moved.
 */
export function buildMarks(doc: TextLike, list: readonly Annotation[]): AnnotationMarks {
  const detached = new Set<string>();
  const ranges: Range<Decoration>[] = [];
  const lines = new Map<number, KindGlyph>();
  for (const a of list) {
    if (!anchoredIn(doc, a)) {
      detached.add(a.id);
      continue;
    }
    if (a.to > a.from) {
      const cls = `cm-ann cm-ann-${a.kind}${a.resolved ? ' cm-ann-resolved' : ''}`;
      ranges.push(Decoration.mark({ class: cls, attributes: { 'data-annotation-id': a.id } }).range(a.from, a.to));
    }
    const line = doc.lineAt(a.from).from;
    const prev = lines.get(line);
    if (!prev || (prev.resolved && !a.resolved)) lines.set(line, new KindGlyph(a.kind, a.resolved));
  }
  const b = new RangeSetBuilder<GutterMarker>();
  for (const [pos, g] of [...lines].sort((x, y) => x[0] - y[0])) b.add(pos, pos, g);
  return { all: list, marks: Decoration.set(ranges, true), glyphs: b.finish(), detached };
}

/** The state field holding the annotation marks. */
export const annotationField = StateField.define<AnnotationMarks>({
  create: () => EMPTY,
  update(value, tr) {
    let next = value;
    for (const e of tr.effects) if (e.is(setAnnotations)) next = buildMarks(tr.state.doc, e.value);
    return next;
  },
  provide: (f) => EditorView.decorations.from(f, (v) => v.marks),
});

/** The annotations whose range covers `pos`, skipping detached ones. */
export function annotationsAt(marks: AnnotationMarks, pos: number): Annotation[] {
  return marks.all.filter((a) => !marks.detached.has(a.id) && a.from <= pos && pos <= a.to);
}

/** Builds the hover card for annotations, as text nodes only. */
function threadTooltip(list: readonly Annotation[]): HTMLElement {
  const root = document.createElement('div');
  root.className = 'cm-ann-tooltip';
  for (const a of list.slice(0, 3)) {
    const card = root.appendChild(document.createElement('div'));
    const head = card.appendChild(document.createElement('div'));
    head.className = `cm-ann-tooltip-head cm-ann-${a.kind}`;
    head.textContent = `${a.kind} · ${a.author.name}${a.resolved ? ' · resolved' : ''}`;
    if (a.body) card.appendChild(document.createElement('div')).textContent = a.body;
    for (const r of a.replies.slice(-3)) {
      const reply = card.appendChild(document.createElement('div'));
      reply.className = 'cm-ann-tooltip-reply';
      reply.textContent = `${r.author.name}: ${r.body}`;
    }
    if (a.replies.length > 3) card.appendChild(document.createElement('div')).textContent = `… ${a.replies.length} replies`;
  }
  return root;
}

/** Options of the annotation extension. */
export interface AnnotationMarksOptions {
  /** Called when a mark is clicked, with the annotation id. */
  readonly onOpen?: (id: string) => void;
}

/** Inline marks by kind, glyphs in the line-number gutter, a hover card with the thread, and click-to-open. */
export function annotationMarks(opts: AnnotationMarksOptions = {}): Extension {
  return [
    annotationField,
    // Glyphs share the line-number gutter: a second gutter column would double the gutter DOM
    // rebuilt on every viewport change of a large dump.
    lineNumberMarkers.from(annotationField, (v) => v.glyphs),
    hoverTooltip((v, pos): Tooltip | null => {
      const found = annotationsAt(v.state.field(annotationField), pos);
      if (found.length === 0) return null;
      return { pos, above: true, create: () => ({ dom: threadTooltip(found) }) };
    }),
    EditorView.domEventHandlers({
      click(event) {
        const target = event.target instanceof Element ? event.target.closest('[data-annotation-id]') : null;
        const id = target?.getAttribute('data-annotation-id');
        if (id && opts.onOpen) opts.onOpen(id);
        return false;
      },
    }),
  ];
}
