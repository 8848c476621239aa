import { describe, expect, it } from 'vitest';
import type { LabResults, LabView } from '@seam/shared/teaching';
import { stepRows } from './lab-progress';

const view: LabView = {
  id: 'lab-2.2', code: 'LAB·2.2', title: 'Spill', summary: 's', captures: [],
  steps: [
    { id: 'capture', title: 'Capture', question: 'Run it.', kind: 'capture-done', perMember: false },
    { id: 'spill', title: 'Mark the spill', question: 'Mark it.', kind: 'spill-annotated', perMember: true },
  ],
};
const results: LabResults = {
  labId: 'lab-2.2', evaluatedAt: 1,
  room: { capture: { done: true, detail: 'captured' } },
  members: {
    ada: { name: 'Ada', steps: { spill: { done: true, detail: 'within 2%' } } },
    bob: { name: 'Bob', steps: { spill: { done: false, detail: '52% off' } } },
  },
};

describe('stepRows', () => {
  it('gives a room-wide step to everyone and a per-member step to each person, with the class count', () => {
    expect(stepRows(view, results, 'ada')).toEqual([
      { id: 'capture', title: 'Capture', question: 'Run it.', perMember: false, mine: { done: true, detail: 'captured' }, class: null },
      { id: 'spill', title: 'Mark the spill', question: 'Mark it.', perMember: true, mine: { done: true, detail: 'within 2%' }, class: { done: 1, of: 2 } },
    ]);
    expect(stepRows(view, results, 'bob')[1]?.mine).toEqual({ done: false, detail: '52% off' });
  });

  it('leaves a newcomer\'s own step open, and every step unknown before an evaluation or with another lab\'s results', () => {
    expect(stepRows(view, results, 'cai')[1]?.mine).toEqual({ done: false, detail: 'no annotation of yours yet' });
    for (const rows of [stepRows(view, null, 'ada'), stepRows(view, { ...results, labId: 'lab-2.1' }, 'ada')]) {
      expect(rows.map((r) => [r.mine, r.class])).toEqual([[null, null], [null, null]]);
    }
  });
});
