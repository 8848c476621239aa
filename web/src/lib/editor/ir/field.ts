import { StateEffect, StateField } from '@codemirror/state';
import type { DumpIndex } from '@seam/shared/ir';
import { buildLookup, type IrLookup, type ViewIndex } from './lookup';

/** Sets (or clears with `null`) the analysis of the dump in this editor; overlays appear when it arrives. */
export const setIrIndex = StateEffect.define<ViewIndex | DumpIndex | null>();

/** The lookups over the current dump's index, `null` until the analysis has arrived. */
export const irIndexField = StateField.define<IrLookup | null>({
  create: () => null,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setIrIndex) && e.value !== value?.index) value = e.value ? buildLookup(e.value) : null;
    return value;
  },
});
