import { RangeSetBuilder, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view';

/** Lines of one pane that nothing in the other side matched: `removed` in A, `added` in B. */
export interface DiffMarks {
  /** Ascending. */
  readonly lines: ArrayLike<number>;
  readonly change: 'removed' | 'added';
}

/** Replaces the marked lines. */
export const setDiffMarks = StateEffect.define<DiffMarks>();

const decos = {
  removed: Decoration.line({ class: 'cm-diff-removed', attributes: { 'data-diff': 'removed' } }),
  added: Decoration.line({ class: 'cm-diff-added', attributes: { 'data-diff': 'added' } }),
};

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) {
      if (!e.is(setDiffMarks)) continue;
      const doc = tr.state.doc;
      const b = new RangeSetBuilder<Decoration>();
      // Ascending and in range, as the builder wants them.
      const { lines } = e.value;
      for (let i = 0; i < lines.length; i++) {
        const n = lines[i] as number;
        if (n >= 1 && n <= doc.lines && (i === 0 || n > (lines[i - 1] as number))) b.add(doc.line(n).from, doc.line(n).from, decos[e.value.change]);
      }
      value = b.finish();
    }
    return value.map(tr.changes);
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Marks unmatched lines in a diff pane (fed by `setDiffMarks`), with a bar in the change's colour. */
export function diffMarks(): Extension {
  return [
    marksField,
    EditorView.theme({
      '.cm-diff-removed': { backgroundColor: 'color-mix(in srgb, var(--ann-spill) 10%, transparent)', boxShadow: 'inset 3px 0 0 var(--ann-spill)' },
      '.cm-diff-added': { backgroundColor: 'color-mix(in srgb, var(--syn-string) 10%, transparent)', boxShadow: 'inset 3px 0 0 var(--syn-string)' },
    }),
  ];
}
