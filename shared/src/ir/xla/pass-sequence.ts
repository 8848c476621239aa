import { indexHlo } from '../hlo/index';
import { DocumentKind } from '../../model/document';
import type { PassStep, PassStepCounts } from './types';
import { passStepOf } from './pass-step';

/** One pass dump of a module, in pass order: a label (the pass it follows) and its counts. */
export interface PassInput {
  readonly label: string;
  readonly step: PassStep;
}

/** What changed from the previous step. */
export interface PassDelta extends PassStepCounts {
  readonly fusionsFormed: readonly string[];
  readonly fusionsRemoved: readonly string[];
  readonly copiesAppeared: readonly string[];
  readonly copiesRemoved: readonly string[];
}

/** One row of a pass sequence: the step's counts and, from the second step on, the delta to the one before. */
export interface PassRow extends PassStepCounts {
  readonly label: string;
  readonly position: number;
  readonly delta?: PassDelta;
  /** Whether anything counted changed (always true for the first step). */
  readonly changed: boolean;
}

/**
 * A module's pass dumps as a sequence: per step its counts and the delta to the step before,
 * naming the fusions formed or removed and the copies that appeared or went.
 */
export function passSequence(steps: readonly PassInput[]): PassRow[] {
  const rows: PassRow[] = [];
  let prev: PassStep | undefined;
  steps.forEach(({ label, step }, position) => {
    const counts = { instructions: step.instructions, fusions: step.fusions, copies: step.copies, bytes: step.bytes };
    if (!prev) {
      rows.push({ label, position, ...counts, changed: true });
    } else {
      const delta: PassDelta = {
        instructions: step.instructions - prev.instructions, fusions: step.fusions - prev.fusions, copies: step.copies - prev.copies, bytes: step.bytes - prev.bytes,
        fusionsFormed: added(prev.fusionNames, step.fusionNames), fusionsRemoved: added(step.fusionNames, prev.fusionNames),
        copiesAppeared: added(prev.copyNames, step.copyNames), copiesRemoved: added(step.copyNames, prev.copyNames),
      };
      const changed = delta.instructions !== 0 || delta.bytes !== 0 || delta.fusionsFormed.length + delta.fusionsRemoved.length + delta.copiesAppeared.length + delta.copiesRemoved.length > 0;
      rows.push({ label, position, ...counts, delta, changed });
    }
    prev = step;
  });
  return rows;
}

/** The pass sequence of texts given in pass order, each indexed by the HLO indexer. */
export function passSequenceOfTexts(texts: readonly { readonly label: string; readonly text: string }[]): PassRow[] {
  return passSequence(texts.map(({ label, text }) => {
    const { values, keys } = indexHlo(text, DocumentKind.hlo).index;
    return { label, step: passStepOf(values, keys) };
  }));
}

/** Names in `now` that are not in `before`, in `now`'s order. */
function added(before: readonly string[], now: readonly string[]): string[] {
  const had = new Set(before);
  return now.filter((n) => !had.has(n));
}
