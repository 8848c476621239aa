import { StringStream, type StreamParser } from '@codemirror/language';
import { RangeSetBuilder, type Extension } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';
import { fastScrollSettled } from '../fast-scroll';
import { SETTLE_MS, isFastScroll } from '../scroll-speed';
import { TokenPainter, canPaintTokens, paintGroup } from './token-paint';

/** Longest line tokenized; the rest of a longer line is left plain (HLO lines with huge constants). */
const MAX_LINE = 10_000;

/** Token styles the theme colours (see `irHighlightTheme`); others (punctuation, operators, plain names) get no mark. */
const COLOURED = new Set(['keyword', 'typeName', 'variableName', 'definition', 'function', 'labelName', 'propertyName', 'number', 'string', 'comment', 'lineComment', 'meta']);

const marks = new Map<string, Decoration | null>();

/**
 * `variableName.definition` → `cm-ir-t-variableName cm-ir-t-definition`, one decoration per style;
 * null for a style no rule colours, so that no span is drawn for it (fewer DOM nodes per line).
 */
function markFor(style: string): Decoration | null {
  let m = marks.get(style);
  if (m === undefined) {
    const names = style.split(/[\s.]+/).filter(Boolean);
    const cls = names.map((s) => `cm-ir-t-${s}`).join(' ');
    m = names.some((n) => COLOURED.has(n)) ? Decoration.mark({ class: cls }) : null;
    marks.set(style, m);
  }
  return m;
}

/** Lines whose tokens are kept; past this the cache starts over (a long scroll through a big dump). */
const MAX_CACHED = 20_000;

/**
 * Coloured tokens of each line tokenized so far, by line start: `[from, to, style, …]` relative to the line.
 * A dump never changes, so a line is tokenized once however often it scrolls back into view.
 */
class TokenCache<S> {
  private lines = new Map<number, Array<number | string>>();
  constructor(private readonly parser: StreamParser<S>) {}

  /** The tokens of the line at `from` if it was tokenized, else undefined. */
  get(from: number): Array<number | string> | undefined {
    return this.lines.get(from);
  }

  /** The tokens of `text` (the line at `from`), tokenizing with `state` the first time. */
  tokens(from: number, text: string, tab: number, state: S): Array<number | string> {
    const hit = this.lines.get(from);
    if (hit) return hit;
    if (this.lines.size >= MAX_CACHED) this.lines = new Map();
    const out: Array<number | string> = [];
    const line = text.length > MAX_LINE ? text.slice(0, MAX_LINE) : text;
    const stream = new StringStream(line, tab, 2);
    if (line.length === 0) this.parser.blankLine?.(state, 2);
    while (!stream.eol()) {
      const style = this.parser.token(stream, state);
      if (stream.pos <= stream.start) stream.pos = stream.start + 1;
      const n = out.length;
      // Adjacent tokens of one style share a mark: `tensor<` `16x32xf32` `>` is one span.
      if (style && markFor(style) && n > 0 && out[n - 2] === stream.start && out[n - 1] === style) out[n - 2] = stream.pos;
      else if (style && markFor(style)) out.push(stream.start, stream.pos, style);
      stream.start = stream.pos;
    }
    this.lines.set(from, out);
    return out;
  }
}

/**
 * Tokenizes the lines in view and marks their tokens: nothing is parsed outside the viewport, so a
 * 20 MB dump costs what its visible lines cost, and a line already seen costs only its marks. Each
 * visible range starts from a fresh parser state at its first line; IR lines stand mostly alone.
 * With `painted`, only tokens that a highlight cannot draw (bold definitions) become marks; the
 * rest are painted by `TokenPainter` after the lines are drawn.
 */
function build<S>(view: EditorView, parser: StreamParser<S>, cache: TokenCache<S>, painted: boolean): DecorationSet {
  const b = new RangeSetBuilder<Decoration>();
  const doc = view.state.doc;
  const tab = view.state.tabSize;
  // Visible ranges can share a line (a long line split by a fold or a widget): each line once, in order.
  let done = -1;
  for (const r of view.visibleRanges) {
    const state = parser.startState ? parser.startState(2) : ({} as S);
    for (let pos = Math.max(r.from, done + 1); pos <= r.to; ) {
      const line = doc.lineAt(pos);
      pos = line.to + 1;
      if (line.from <= done) continue;
      done = line.to;
      const t = cache.tokens(line.from, line.text, tab, state);
      for (let i = 0; i < t.length; i += 3) {
        const style = t[i + 2] as string;
        if (!painted || paintGroup(style) === null) b.add(line.from + (t[i] as number), line.from + (t[i + 1] as number), markFor(style) as Decoration);
      }
    }
  }
  return b.finish();
}

/**
 * Highlighting of the visible lines by `parser` (see `build`), tokens cached per line until the text
 * changes. Where the browser has the CSS Custom Highlight API, tokens are painted as highlights
 * over the lines' plain text (see `TokenPainter`) rather than drawn as one span each.
 */
export function viewportHighlighter<S>(parser: StreamParser<S>): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      cache = new TokenCache(parser);
      painter = canPaintTokens() ? new TokenPainter() : null;
      destroyed = false;
      constructor(view: EditorView) {
        this.decorations = build(view, parser, this.cache, this.painter !== null);
        // Redraws paint (`docViewUpdate`), but an editor drawn once with this plugin may not redraw again.
        if (this.painter) view.requestMeasure({ key: this, read: () => null, write: () => { if (!this.destroyed) this.paint(view, true); } });
      }
      update(u: ViewUpdate) {
        if (u.docChanged) this.cache = new TokenCache(parser);
        if (u.viewportChanged || u.docChanged) this.decorations = build(u.view, parser, this.cache, this.painter !== null);
      }
      // Where the viewport started at the last redraw, and when; a timer that paints once a fast scroll
      // settles. A redraw that is part of a fast scroll (`isFastScroll`) leaves the lines it brings
      // plain until then, because every coloured token in view is repainted at each redraw (see
      // `TokenPainter`); scrolling at reading speed is painted at once. A fast scroll drawn by the
      // fast-scroll layer ends in `settled`, whether CodeMirror redrew as the layer handed back or
      // before (see `fastScrollSettled`).
      lastLine = 0;
      lastAt = 0;
      settle: ReturnType<typeof setTimeout> | undefined;
      docViewUpdate(view: EditorView) {
        if (!this.painter) return;
        const now = performance.now();
        const line = view.state.doc.lineAt(view.viewport.from).number;
        const gap = now - this.lastAt;
        const fast = isFastScroll(gap, line - this.lastLine);
        this.lastLine = line;
        this.lastAt = now;
        clearTimeout(this.settle);
        if (fast) this.settle = setTimeout(() => this.paint(view, true), SETTLE_MS);
        this.paint(view, !fast);
      }
      settled(view: EditorView) {
        clearTimeout(this.settle);
        this.paint(view, true);
      }
      paint(view: EditorView, fresh: boolean) {
        const tab = view.state.tabSize;
        this.painter?.paint(view, (from, text) => this.cache.get(from) ?? this.cache.tokens(from, text, tab, parser.startState ? parser.startState(2) : ({} as S)), fresh);
      }
      destroy() {
        this.destroyed = true;
        clearTimeout(this.settle);
        this.painter?.clear();
      }
    },
    { decorations: (p) => p.decorations, provide: (p) => fastScrollSettled.of((view) => view.plugin(p)?.settled(view)) },
  );
}
