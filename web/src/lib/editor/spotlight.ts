import { StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view';

/** Pulses a range for everyone (`null` clears it). */
export const setSpotlight = StateEffect.define<{ from: number; to: number } | null>();

const spotlightMark = Decoration.mark({ class: 'cm-spotlight' });

const spotlightField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    for (const e of tr.effects) {
      if (!e.is(setSpotlight)) continue;
      const r = e.value;
      value = r && r.to > r.from && r.to <= tr.state.doc.length ? Decoration.set([spotlightMark.range(r.from, r.to)]) : Decoration.none;
    }
    return value;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** The presenter's spotlight: a highlighted range that pulses briefly (see the `cm-spotlight` style). */
export function spotlight(): Extension {
  return spotlightField;
}
