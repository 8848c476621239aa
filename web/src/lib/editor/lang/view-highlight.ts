import { StringStream, type StreamParser } from '@codemirror/language';
import { RangeSetBuilder, type Extension } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';

/** Longest line tokenized; the rest of a longer line is left plain (HLO lines with huge constants). */
const MAX_LINE = 10_000;

const marks = new Map<string, Decoration>();

/** `variableName.definition` → `cm-ir-t-variableName cm-ir-t-definition`, one decoration per style. */
function markFor(style: string): Decoration {
  let m = marks.get(style);
  if (!m) {
    const cls = style.split(/[\s.]+/).filter(Boolean).map((s) => `cm-ir-t-${s}`).join(' ');
    marks.set(style, (m = Decoration.mark({ class: cls })));
  }
  return m;
}

/**
 * Tokenizes the lines in view with a stream parser and marks each token with classes: nothing is
 * parsed outside the viewport, so a 20 MB dump costs what its visible lines cost. Each visible
 * range starts from a fresh parser state at its first line; IR lines stand mostly alone.
 */
function build<S>(view: EditorView, parser: StreamParser<S>): DecorationSet {
  const b = new RangeSetBuilder<Decoration>();
  const doc = view.state.doc;
  const tab = view.state.tabSize;
  // Visible ranges can share a line (a long line split by a fold or a widget): each line once, in order.
  let done = -1;
  for (const r of view.visibleRanges) {
    const state = parser.startState ? parser.startState(2) : ({} as S);
    for (let pos = Math.max(r.from, done + 1); pos <= r.to; ) {
      const line = doc.lineAt(pos);
      if (line.from <= done) {
        pos = line.to + 1;
        continue;
      }
      done = line.to;
      const text = line.text.length > MAX_LINE ? line.text.slice(0, MAX_LINE) : line.text;
      const stream = new StringStream(text, tab, 2);
      if (text.length === 0) parser.blankLine?.(state, 2);
      while (!stream.eol()) {
        const style = parser.token(stream, state);
        if (stream.pos <= stream.start) stream.pos = stream.start + 1;
        if (style) b.add(line.from + stream.start, line.from + stream.pos, markFor(style));
        stream.start = stream.pos;
      }
      pos = line.to + 1;
    }
  }
  return b.finish();
}

/** Highlighting of the visible lines by `parser` (see `build`). */
export function viewportHighlighter<S>(parser: StreamParser<S>): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(view, parser);
      }
      update(u: ViewUpdate) {
        if (u.viewportChanged || u.docChanged) this.decorations = build(u.view, parser);
      }
    },
    { decorations: (p) => p.decorations },
  );
}
