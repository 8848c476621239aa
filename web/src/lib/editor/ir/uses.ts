import { RangeSetBuilder } from '@codemirror/state';
import { Decoration, ViewPlugin, type DecorationSet, type EditorView, type ViewUpdate } from '@codemirror/view';
import { irIndexField } from './field';
import { bareName, valueAt, wordAt } from './lookup';

const useMark = Decoration.mark({ class: 'cm-ir-use' });
const NAME_CHAR = /[\w.\-$]/;

/** Whole-word occurrences of `bare` (optionally after `%`) in `[from, to)` of the view's text. */
export function occurrences(text: string, offset: number, bare: string): Array<{ from: number; to: number }> {
  const out: Array<{ from: number; to: number }> = [];
  let i = text.indexOf(bare);
  while (i >= 0) {
    const before = text[i - 1] ?? ' ';
    const after = text[i + bare.length] ?? ' ';
    const start = before === '%' ? i - 1 : i;
    if (!NAME_CHAR.test(after) && (before === '%' || !NAME_CHAR.test(before)) && !(before === '%' && NAME_CHAR.test(text[i - 2] ?? ' '))) {
      out.push({ from: offset + start, to: offset + i + bare.length });
    }
    i = text.indexOf(bare, i + bare.length);
  }
  return out;
}

function build(view: EditorView): DecorationSet {
  const l = view.state.field(irIndexField, false);
  const head = view.state.selection.main.head;
  if (!l) return Decoration.none;
  const line = view.state.doc.lineAt(head);
  const w = wordAt(line.text, line.from, head);
  if (!w || !(valueAt(l, w.text, head) || l.blocks.has(bareName(w.text)))) return Decoration.none;
  const bare = bareName(w.text);
  const b = new RangeSetBuilder<Decoration>();
  for (const r of view.visibleRanges) {
    for (const o of occurrences(view.state.doc.sliceString(r.from, r.to), r.from, bare)) b.add(o.from, o.to, useMark);
  }
  return b.finish();
}

/** Highlights every use of the value or computation under the cursor, in the visible lines only. */
export function irHighlightUses() {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(view);
      }
      update(u: ViewUpdate) {
        const indexChanged = u.startState.field(irIndexField, false) !== u.state.field(irIndexField, false);
        if (u.selectionSet || u.viewportChanged || u.docChanged || indexChanged) this.decorations = build(u.view);
      }
    },
    { decorations: (p) => p.decorations },
  );
}
