import type { LabResults, LabView, StepResult } from '@seam/shared/teaching';

/** One step as the Lab panel shows it to one person. */
export interface StepRow {
  readonly id: string;
  readonly title: string;
  readonly question: string;
  readonly perMember: boolean;
  /** This person's state of the step (the room's, for a room-wide step); null before any evaluation. */
  readonly mine: StepResult | null;
  /** For a per-member step: how many of the members the results know have it done, of how many. */
  readonly class: { readonly done: number; readonly of: number } | null;
}

/**
 * The steps of `view` with `results` read for person `meId`: a room-wide step is the same for
 * everyone; a per-member step is this person's own, open until their work is seen, and counted
 * over the members the results name. Results of another lab are ignored.
 */
export function stepRows(view: LabView, results: LabResults | null, meId: string): StepRow[] {
  const r = results && results.labId === view.id ? results : null;
  const members = r ? Object.values(r.members) : [];
  return view.steps.map((s) => {
    if (!s.perMember) return { id: s.id, title: s.title, question: s.question, perMember: false, mine: r?.room[s.id] ?? null, class: null };
    const own = r ? (r.members[meId]?.steps[s.id] ?? { done: false, detail: 'no annotation of yours yet' }) : null;
    const done = members.filter((m) => m.steps[s.id]?.done === true).length;
    return { id: s.id, title: s.title, question: s.question, perMember: true, mine: own, class: r ? { done, of: members.length } : null };
  });
}
