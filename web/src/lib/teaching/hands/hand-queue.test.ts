import { describe, expect, it } from 'vitest';
import { participant as person } from '../../collab/test-participant';
import { handQueue, isLowered, MAX_LOWERED, staleLowered } from './hand-queue';

describe('the queue of raised hands', () => {
  it('lists hands up oldest first, with where each person is, and leaves out hands down', () => {
    const people = [
      person(1, 'Cy', { hand: { raisedAt: 3000 }, docId: 'hlo', line: 42 }),
      person(2, 'Bo', { hand: { raisedAt: 1000 }, docId: 'shlo', line: 7 }),
      person(3, 'Di'),
      person(4, 'Ed', { hand: { raisedAt: 2000 } }),
    ];
    expect(handQueue(people, new Map()).map((h) => [h.name, h.raisedAt, h.docId, h.line])).toEqual([
      ['Bo', 1000, 'shlo', 7],
      ['Ed', 2000, 'd1', null],
      ['Cy', 3000, 'hlo', 42],
    ]);
  });

  it('leaves out a hand the owner lowered, but not the same person raising it again later', () => {
    const lowered = new Map([['u-Bo', 1000]]);
    expect(handQueue([person(2, 'Bo', { hand: { raisedAt: 1000 } })], lowered)).toEqual([]);
    expect(isLowered({ raisedAt: 1000 }, 'u-Bo', lowered)).toBe(true);
    expect(handQueue([person(2, 'Bo', { hand: { raisedAt: 5000 } })], lowered).map((h) => h.raisedAt)).toEqual([5000]);
    expect(isLowered({ raisedAt: 1000 }, 'u-Cy', lowered)).toBe(false);
  });

  it('breaks ties of the same time by name', () => {
    const people = [person(1, 'Zoe', { hand: { raisedAt: 10 } }), person(2, 'Al', { hand: { raisedAt: 10 } })];
    expect(handQueue(people, new Map()).map((h) => h.name)).toEqual(['Al', 'Zoe']);
  });
});

describe('lowered marks that did their work', () => {
  it('drops a mark once its person is here with the hand down or raised again, and keeps marks of people away', () => {
    const lowered = new Map([
      ['u-Bo', 1000],
      ['u-Cy', 2000],
      ['u-Di', 3000],
      ['u-Away', 4000],
    ]);
    const people = [person(1, 'Bo'), person(2, 'Cy', { hand: { raisedAt: 2500 } }), person(3, 'Di', { hand: { raisedAt: 3000 } })];
    expect(staleLowered(lowered, people).sort()).toEqual(['u-Bo', 'u-Cy']);
  });

  it('keeps a mark while one of the person\'s tabs still shows the lowered hand', () => {
    const people = [person(1, 'Bo'), person(2, 'Bo', { hand: { raisedAt: 1000 } })];
    expect(staleLowered(new Map([['u-Bo', 1000]]), people)).toEqual([]);
  });

  it('bounds the marks of people away: past the limit the oldest go', () => {
    const lowered = new Map(Array.from({ length: MAX_LOWERED + 3 }, (_, i) => [`u-${i}`, 1000 + i] as const));
    expect(staleLowered(lowered, []).sort()).toEqual(['u-0', 'u-1', 'u-2']);
  });
});
