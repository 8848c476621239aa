import { formatExpected, type DrillClassView, type DrillEntry, type DrillMineView, type DrillTally } from '@seam/shared/teaching';
import type { StoredAnswer, StoredDrill } from './drill-store';

/** Answered and right counts by question id, every question present. */
export function tallyOf(drill: StoredDrill, answers: readonly StoredAnswer[]): Record<string, DrillTally> {
  const tally: Record<string, { answered: number; right: number }> = {};
  for (const item of drill.items) tally[item.question.id] = { answered: 0, right: 0 };
  for (const a of answers) {
    const t = tally[a.questionId];
    if (!t) continue;
    t.answered++;
    if (a.correct) t.right++;
  }
  return tally;
}

/** The drill as the room document shows it: questions, and once revealed the answers and tally. */
export function entryOf(drill: StoredDrill, answers: readonly StoredAnswer[]): DrillEntry {
  const base = { id: drill.id, docId: drill.docId, createdAt: drill.createdAt, questions: drill.items.map((i) => i.question) };
  if (drill.revealedAt === null) return base;
  return {
    ...base,
    revealed: {
      at: drill.revealedAt,
      answers: Object.fromEntries(drill.items.map((i) => [i.question.id, formatExpected(i.expected)])),
      tally: tallyOf(drill, answers),
      people: new Set(answers.map((a) => a.person)).size,
    },
  };
}

/** The owner's view: tally by question and every person's answers with verdicts. */
export function classViewOf(drill: StoredDrill, answers: readonly StoredAnswer[]): DrillClassView {
  const people = new Map<string, { person: string; name: string; answers: DrillClassView['people'][number]['answers'][number][] }>();
  for (const a of answers) {
    let p = people.get(a.person);
    if (!p) people.set(a.person, (p = { person: a.person, name: a.name, answers: [] }));
    p.name = a.name;
    p.answers.push({ questionId: a.questionId, answer: a.answer, correct: a.correct, at: a.answeredAt });
  }
  return { drillId: drill.id, tally: tallyOf(drill, answers), people: [...people.values()] };
}

/** One person's own answers; the verdicts only once the drill is revealed. */
export function mineViewOf(drill: StoredDrill, answers: readonly StoredAnswer[]): DrillMineView {
  const revealed = drill.revealedAt !== null;
  return {
    drillId: drill.id,
    revealed,
    answers: answers.map((a) => ({ questionId: a.questionId, answer: a.answer, at: a.answeredAt, ...(revealed ? { correct: a.correct } : {}) })),
  };
}
