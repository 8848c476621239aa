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

/**
 * The bare name of the value or computation under the cursor, or null when it is none. With
 * `blocksOnly` (the index just arrived and the cursor has not moved), values are not consulted
 * unless already indexed by name, so that the arrival does not build that index on the main thread.
 */
function nameUnderCursor(view: EditorView, blocksOnly = false): string | null {
  const l = view.state.field(irIndexField, false);
  const head = view.state.selection.main.head;
  if (!l) return null;
  const line = view.state.doc.lineAt(head);
  const w = wordAt(line.text, line.from, head);
  if (!w) return null;
  const values = !blocksOnly || l.values.indexed;
  if (!l.blocks.has(bareName(w.text)) && !(values && valueAt(l, w.text, head))) return null;
  return bareName(w.text);
}

function build(view: EditorView, bare: string | null): DecorationSet {
  if (bare === null) return Decoration.none;
  const b = new RangeSetBuilder<Decoration>();
  for (const r of view.visibleRanges) {
    for (const o of occurrences(view.state.doc.sliceString(r.from, r.to), r.from, bare)) b.add(o.from, o.to, useMark);
  }
  return b.finish();
}

/**
 * Highlights every use of the value or computation under the cursor, in the visible lines only; the
 * name is looked up when the selection or the index changes, and scrolling rescans only when there is one.
 */
export function irHighlightUses() {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      bare: string | null;
      constructor(view: EditorView) {
        this.bare = nameUnderCursor(view);
        this.decorations = build(view, this.bare);
      }
      update(u: ViewUpdate) {
        const indexChanged = u.startState.field(irIndexField, false) !== u.state.field(irIndexField, false);
        if (u.selectionSet || u.docChanged || indexChanged) this.bare = nameUnderCursor(u.view, !u.selectionSet && !u.docChanged);
        else if (!u.viewportChanged || this.bare === null) return;
        this.decorations = build(u.view, this.bare);
      }
    },
    { decorations: (p) => p.decorations },
  );
}
