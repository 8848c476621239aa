import { StateEffect, StateField } from '@codemirror/state';
import type { OpAggregate } from '@seam/shared/trace';
import { formatUs } from '../../trace/timeline-model';

/** The measured time of each op of a trace beside this dump, by HLO op name. */
export type OpTimes = ReadonlyMap<string, Pick<OpAggregate, 'count' | 'totalUs' | 'meanUs'>>;

/** Sets (or clears with `null`) the op times of the trace linked to the dump in this editor. */
export const setOpTimes = StateEffect.define<OpTimes | null>();

/** The op times the hover shows, `null` when no trace is linked. */
export const opTimesField = StateField.define<OpTimes | null>({
  create: () => null,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setOpTimes)) value = e.value;
    return value;
  },
});

/** `trace fusion.3: total 1.2 ms · mean 400 µs · 3 events`. */
export function opTimeLine(op: string, t: Pick<OpAggregate, 'count' | 'totalUs' | 'meanUs'>): string {
  return `trace ${op}: total ${formatUs(t.totalUs)} · mean ${formatUs(t.meanUs)} · ${t.count.toLocaleString('en-US')} event${t.count === 1 ? '' : 's'}`;
}
