import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { DrillItem } from '@seam/shared/teaching';
import { MAX_DRILL_ITEMS_BYTES } from '../../../server/src/store/shared-input';
import { StoreInputError } from '../../../server/src/store/store-errors';
import { hashes, type ContractBackend, type ContractClock } from './store-contract';

const hash = (s: string) => createHash('sha256').update(s).digest();
/** Drill items as the store keeps them: opaque JSON it returns as given. */
const items = [
  { question: { id: 'q1', ask: 'einsum', prompt: 'What does %dot.3 compute?' }, expected: { kind: 'einsum', value: 'bij,bjk->bik' } },
  { question: { id: 'q2', ask: 'bytes', prompt: 'How many bytes?' }, expected: { kind: 'bytes', value: 4096 } },
] as unknown as DrillItem[];

/**
 * The contract of invitations and drills, run against every backend as `describeSharedStore` is:
 * `open(clock)` gives a fresh, empty backend.
 */
export function describeInvitationsAndDrills(name: string, open: (clock: ContractClock) => Promise<ContractBackend>): void {
  describe(`shared store contract, invitations and drills: ${name}`, () => {
    let backend: ContractBackend | undefined;
    const start = async () => {
      backend = await open({ t: 1_000 });
      return backend.store;
    };
    afterEach(async () => {
      await backend?.cleanup();
      backend = undefined;
    });

    describe('invitations', () => {
      it('takes uses until none is left, and says why an invitation is refused', async () => {
        const store = await start();
        expect(await store.invitations.insert(hash('one'), { id: 'inv1', note: 'course', uses: 2, createdAt: 10, expiresAt: 1_000 }))
          .toEqual({ id: 'inv1', note: 'course', uses: 2, usesLeft: 2, createdAt: 10, expiresAt: 1_000, revokedAt: null });
        await store.invitations.insert(hash('two'), { id: 'inv2', note: '', uses: 1, createdAt: 11, expiresAt: null });
        await store.invitations.insert(hash('three'), { id: 'inv3', note: 'lab', uses: 5, createdAt: 12, expiresAt: 100 });
        expect(await store.invitations.status(hash('one'), 20)).toBe('live');
        expect(await store.invitations.take(hash('one'), 20)).toBe('taken');
        expect(await store.invitations.take(hash('one'), 21)).toBe('taken');
        expect(await store.invitations.take(hash('one'), 22)).toBe('used_up');
        expect(await store.invitations.status(hash('one'), 22)).toBe('used_up');
        expect(await store.invitations.take(hash('two'), 5_000_000)).toBe('taken');
        expect(await store.invitations.take(hash('three'), 100)).toBe('expired');
        expect(await store.invitations.revoke('inv3', 50)).toBe(true);
        expect(await store.invitations.revoke('inv3', 60)).toBe(false);
        expect(await store.invitations.take(hash('three'), 60)).toBe('revoked');
        expect(await store.invitations.take(hash('nobody'), 1)).toBe('unknown');
        expect((await store.invitations.list()).map((i) => [i.id, i.usesLeft, i.revokedAt])).toEqual([['inv1', 0, null], ['inv2', 0, null], ['inv3', 5, 50]]);
        await expect(store.invitations.insert(hash('one'), { id: 'inv4', note: 'same secret', uses: 1, createdAt: 13, expiresAt: null })).rejects.toThrow();
        expect(await store.invitations.list()).toHaveLength(3);
      });

      it('never gives the last uses twice when two instances take at once', async () => {
        const store = await start();
        const other = await backend!.second();
        await store.invitations.insert(hash('shared'), { id: 'inv', note: '', uses: 5, createdAt: 1, expiresAt: null });
        const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).invitations.take(hash('shared'), 2)));
        expect(takes.filter((t) => t === 'taken')).toHaveLength(5);
        expect(takes.filter((t) => t === 'used_up')).toHaveLength(15);
      });

      it('refuses malformed invitation calls with StoreInputError, storing nothing', async () => {
        const store = await start();
        const row = { id: 'inv', note: '', uses: 1, createdAt: 1, expiresAt: null };
        const cases: (() => Promise<unknown>)[] = [
          () => store.invitations.insert(Buffer.from('short'), row),
          () => store.invitations.insert(hash('x'), { ...row, id: '' }),
          () => store.invitations.insert(hash('x'), { ...row, note: 'a\0b' }),
          () => store.invitations.insert(hash('x'), { ...row, uses: 0 }),
          () => store.invitations.insert(hash('x'), { ...row, expiresAt: -1 }),
          () => store.invitations.insert(hash('x'), null as never),
          () => store.invitations.take(hash('x'), Number.NaN),
          () => store.invitations.status('secret' as never, 1),
          () => store.invitations.revoke('inv', 1.5),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.invitations.list()).toEqual([]);
      });
    });

    describe('drills', () => {
      it('keeps a drill with its items, reveals it once, and each person\'s latest answer with their first time', async () => {
        const store = await start();
        await store.rooms.create({ id: 'r', title: 'r', createdAt: 1 }, hashes('r'));
        await store.drills.create({ id: 'dr1', roomId: 'r', docId: 'doc1', items, createdAt: 5 });
        expect(await store.drills.get('r', 'dr1')).toEqual({ id: 'dr1', roomId: 'r', docId: 'doc1', items, createdAt: 5, revealedAt: null });
        expect(await store.drills.get('other', 'dr1')).toBeUndefined();
        expect(await store.drills.countInRoom('r')).toBe(1);
        await store.drills.reveal('dr1', 50);
        await store.drills.reveal('dr1', 60);
        expect((await store.drills.get('r', 'dr1'))?.revealedAt).toBe(50);
        await store.drills.answer('dr1', { person: 'pB', name: 'Bo', questionId: 'q1', answer: 'x', correct: false, answeredAt: 100 });
        await store.drills.answer('dr1', { person: 'pA', name: 'Al', questionId: 'q1', answer: 'y', correct: true, answeredAt: 110 });
        await store.drills.answer('dr1', { person: 'pB', name: 'Bob', questionId: 'q2', answer: 'z', correct: true, answeredAt: 120 });
        await store.drills.answer('dr1', { person: 'pB', name: 'Bob', questionId: 'q1', answer: 'x2', correct: true, answeredAt: 130 });
        expect(await store.drills.people('dr1')).toBe(2);
        expect(await store.drills.hasPerson('dr1', 'pA')).toBe(true);
        expect(await store.drills.hasPerson('dr1', 'pC')).toBe(false);
        expect(await store.drills.answers('dr1')).toEqual([
          { person: 'pB', name: 'Bob', questionId: 'q1', answer: 'x2', correct: true, answeredAt: 130, firstAt: 100 },
          { person: 'pB', name: 'Bob', questionId: 'q2', answer: 'z', correct: true, answeredAt: 120, firstAt: 100 },
          { person: 'pA', name: 'Al', questionId: 'q1', answer: 'y', correct: true, answeredAt: 110, firstAt: 110 },
        ]);
        expect((await store.drills.answersOf('dr1', 'pB')).map((a) => a.questionId)).toEqual(['q1', 'q2']);
      });

      it('refuses a drill of a room that does not exist, and an answer to a drill that does not exist', async () => {
        const store = await start();
        await expect(store.drills.create({ id: 'dr1', roomId: 'nowhere', docId: 'doc1', items, createdAt: 5 })).rejects.toThrow();
        await expect(store.drills.answer('nodrill', { person: 'p', name: 'n', questionId: 'q1', answer: 'a', correct: true, answeredAt: 1 })).rejects.toThrow();
        expect(await store.drills.countInRoom('nowhere')).toBe(0);
        expect(await store.drills.answers('nodrill')).toEqual([]);
      });

      it('refuses malformed and oversized drill calls with StoreInputError, storing nothing', async () => {
        const store = await start();
        await store.rooms.create({ id: 'r', title: 'r', createdAt: 1 }, hashes('r'));
        const drill = { id: 'dr1', roomId: 'r', docId: 'doc1', items, createdAt: 5 };
        const answer = { person: 'p', name: 'n', questionId: 'q1', answer: 'a', correct: true, answeredAt: 1 };
        const cases: (() => Promise<unknown>)[] = [
          () => store.drills.create({ ...drill, id: '' }),
          () => store.drills.create({ ...drill, roomId: 'r\0' }),
          () => store.drills.create({ ...drill, items: 'questions' as never }),
          () => store.drills.create({ ...drill, items: [1, 2] as never }),
          () => store.drills.create({ ...drill, items: [{ prompt: 'x'.repeat(MAX_DRILL_ITEMS_BYTES) }] as never }),
          () => store.drills.create({ ...drill, createdAt: -5 }),
          () => store.drills.answer('dr1', { ...answer, correct: 'yes' as never }),
          () => store.drills.answer('dr1', { ...answer, name: 'n\0' }),
          () => store.drills.answer('dr1', { ...answer, person: '' }),
          () => store.drills.answer('dr1', { ...answer, answeredAt: Number.POSITIVE_INFINITY }),
          () => store.drills.reveal('dr1', -1),
          () => store.drills.get('', 'dr1'),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.drills.countInRoom('r')).toBe(0);
      });
    });
  });
}
