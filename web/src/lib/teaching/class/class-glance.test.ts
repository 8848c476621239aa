import { describe, expect, it } from 'vitest';
import type { Annotation } from '@seam/shared/model';
import { participant as person } from '../../collab/test-participant';
import { classRows, openQuestions } from './class-glance';

const annotation = (id: string, kind: Annotation['kind'], createdAt: number, resolved = false): Annotation => ({
  id,
  docId: 'd1',
  from: 0,
  to: 1,
  quote: { prefix: '', exact: 'x', suffix: '' },
  kind,
  body: `${kind} ${id}`,
  author: { id: 'u', name: 'Bo', color: '#1971c2' },
  createdAt,
  resolved,
  replies: [],
});

describe('the class at a glance', () => {
  it('lists everyone but the owner looking: hands up first, oldest first, then by name', () => {
    const people = [
      person(9, 'Ada', { self: true, role: 'owner' }),
      person(1, 'Eve'),
      person(2, 'Cy', { hand: { raisedAt: 200 } }),
      person(3, 'Bo', { hand: { raisedAt: 100 } }),
      person(4, 'Al'),
    ];
    expect(classRows(people, null, new Map()).map((r) => r.name)).toEqual(['Bo', 'Cy', 'Al', 'Eve']);
  });

  it('says who follows only while someone presents, and never the presenter', () => {
    const people = [person(1, 'Bo', { following: true }), person(2, 'Cy', { following: false }), person(3, 'Pat', { following: true })];
    expect(classRows(people, null, new Map()).map((r) => r.following)).toEqual([false, false, false]);
    expect(classRows(people, 3, new Map()).map((r) => [r.name, r.following])).toEqual([
      ['Bo', true],
      ['Cy', false],
      ['Pat', false],
    ]);
  });

  it('shows a lowered hand as down, with the document and line each person is at', () => {
    const people = [person(1, 'Bo', { hand: { raisedAt: 100 }, docId: 'hlo', line: 12 })];
    const [row] = classRows(people, null, new Map([['u-Bo', 100]]));
    expect(row).toMatchObject({ name: 'Bo', hand: null, docId: 'hlo', line: 12 });
  });

  it('gathers the open questions, oldest first, and nothing else', () => {
    const list = [annotation('q2', 'question', 20), annotation('n1', 'note', 5), annotation('q1', 'question', 10), annotation('q3', 'question', 1, true)];
    expect(openQuestions(list).map((a) => a.id)).toEqual(['q1', 'q2']);
  });
});
