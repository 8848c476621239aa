import { EditorSelection, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { irIndexField } from './field';
import { bareName, valueAt, wordAt, type IrLookup } from './lookup';

/** Where a name is defined: a computation, function or jaxpr (by its outline entry), or a value. */
export function definitionOf(l: IrLookup, doc: { sliceString(a: number, b: number): string }, name: string, pos: number): { from: number; to: number } | null {
  const bare = bareName(name);
  const block = name.startsWith('@') || !l.values.has(bare) ? l.blocks.get(bare) : undefined;
  if (block) return nameIn(doc, block.from, Math.min(block.to, block.from + 400), bare) ?? { from: block.from, to: block.from };
  const v = valueAt(l, name, pos);
  if (v) return nameIn(doc, v.from, v.to, bare) ?? { from: v.from, to: v.from };
  const other = l.blocks.get(bare);
  return other ? { from: other.from, to: other.from } : null;
}

/** The first whole-word occurrence of `bare` (with or without a sigil) in `[from, to)`. */
function nameIn(doc: { sliceString(a: number, b: number): string }, from: number, to: number, bare: string): { from: number; to: number } | null {
  const text = doc.sliceString(from, to);
  let i = text.indexOf(bare);
  while (i >= 0) {
    const before = text[i - 1] ?? ' ';
    const after = text[i + bare.length] ?? ' ';
    if (!/[\w.\-$]/.test(before) && !/[\w.\-$]/.test(after)) return { from: from + i, to: from + i + bare.length };
    i = text.indexOf(bare, i + 1);
  }
  return null;
}

/** Jumps to the definition of the name at `pos` (a `calls=`/`to_apply=` target, `%value`, `@func`, jaxpr variable); false when there is none. */
export function goToDefinition(view: EditorView, pos: number): boolean {
  const l = view.state.field(irIndexField, false);
  if (!l) return false;
  const line = view.state.doc.lineAt(pos);
  const w = wordAt(line.text, line.from, pos);
  if (!w) return false;
  const def = definitionOf(l, view.state.doc, w.text, pos);
  if (!def || (def.from <= pos && pos <= def.to)) return false;
  view.dispatch({ selection: EditorSelection.single(def.from, def.to), effects: EditorView.scrollIntoView(def.from, { y: 'center' }), userEvent: 'select.definition' });
  return true;
}

/** Go to definition by F12 or Ctrl/Cmd-click. */
export function irGoToDefinition(): Extension {
  return [
    keymap.of([{ key: 'F12', run: (v) => goToDefinition(v, v.state.selection.main.head) }]),
    EditorView.domEventHandlers({
      mousedown(e, view) {
        if (!(e.ctrlKey || e.metaKey) || e.button !== 0) return false;
        const pos = view.posAtCoords({ x: e.clientX, y: e.clientY });
        if (pos === null || !goToDefinition(view, pos)) return false;
        e.preventDefault();
        return true;
      },
    }),
  ];
}
