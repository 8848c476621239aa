import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { CaptureRequestSchema, ROLES, type Role } from '@seam/shared/model';
import type { SharedStore } from '../../../server/src/store/shared-store';
import { StoreInputError } from '../../../server/src/store/store-errors';
import type { RoomBatch } from '../../../server/src/store/updates-store';

/** A fresh, empty backend for one test: the store, and a second instance of it on the same data (another connection or pool). */
export interface ContractBackend {
  readonly store: SharedStore;
  /** Another instance on the same data, as a second Seam instance would open it. */
  second(): Promise<SharedStore>;
  /** Closes what `store` and `second` opened and removes the data. */
  cleanup(): Promise<void>;
}

/** The clock the job queue reads (ms), moved by the tests. */
export interface ContractClock {
  t: number;
}

const request = (runner?: string) => CaptureRequestSchema.parse({ program: 'def f():\n    return 1\n', entry: 'f', args: [], ...(runner ? { runner } : {}) });
const hash = (s: string) => createHash('sha256').update(s).digest();
/** One SHA-256 token hash per role, derived from the room id. */
export const hashes = (room: string): Record<Role, Buffer> => Object.fromEntries(ROLES.map((r) => [r, hash(`${room}:${r}`)])) as Record<Role, Buffer>;
const bytes = (...b: number[]) => new Uint8Array(b);

/** Yjs updates that each set one key of map `m` (so a loaded room can be checked by content). */
export function keyUpdates(keys: readonly string[]): Uint8Array[] {
  const doc = new Y.Doc();
  const out: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => out.push(u));
  for (const k of keys) doc.getMap('m').set(k, k.length);
  doc.destroy();
  return out;
}

/** The keys of map `m` in the document a loaded room state rebuilds. */
export function loadedKeys(state: { snapshot: Uint8Array | undefined; updates: readonly Uint8Array[] }): string[] {
  const doc = new Y.Doc();
  if (state.snapshot) Y.applyUpdate(doc, state.snapshot);
  for (const u of state.updates) Y.applyUpdate(doc, u);
  const keys = [...doc.getMap('m').keys()].sort();
  doc.destroy();
  return keys;
}

/**
 * For one contract's tests (call it inside their `describe`): `start()` opens a fresh backend with
 * `clock` back at 1,000 and answers its store, `second()` a second instance of that backend; the
 * backend is cleaned up after each test.
 */
export function useContractBackend(open: (clock: ContractClock) => Promise<ContractBackend>) {
  let backend: ContractBackend | undefined;
  const clock: ContractClock = { t: 1_000 };
  const start = async () => {
    clock.t = 1_000;
    backend = await open(clock);
    return backend.store;
  };
  afterEach(async () => {
    await backend?.cleanup();
    backend = undefined;
  });
  return { clock, start, second: () => backend!.second() };
}

/**
 * The shared store's contract, run against every backend (hono's `common.case.test.ts` habit):
 * `open(clock)` gives a fresh, empty backend whose job queue reads `clock.t`.
 */
export function describeSharedStore(name: string, open: (clock: ContractClock) => Promise<ContractBackend>): void {
  describe(`shared store contract: ${name}`, () => {
    const { clock, start, second } = useContractBackend(open);

    describe('room log', () => {
      it('loads a room never written as empty', async () => {
        const store = await start();
        expect(await store.roomLog.load('nobody')).toEqual({ snapshot: undefined, updates: [], logBytes: 0, lastId: 0 });
      });

      it('appends a group of rooms at once and loads each room in commit order, ids rising within a room', async () => {
        const store = await start();
        const first = await store.roomLog.appendRooms([
          { roomId: 'a', updates: [bytes(1), bytes(2, 2)] },
          { roomId: 'b', updates: [bytes(3)] },
          { roomId: 'a', updates: [bytes(4)] },
        ]);
        expect(first).toHaveLength(3);
        expect(first[2]).toBeGreaterThan(first[0]!);
        const [later] = await store.roomLog.appendRooms([{ roomId: 'a', updates: [bytes(5)] }]);
        expect(later).toBeGreaterThan(first[2]!);
        const a = await store.roomLog.load('a');
        expect(a.updates.map((u) => [...u])).toEqual([[1], [2, 2], [4], [5]]);
        expect(a.logBytes).toBe(5);
        expect(a.lastId).toBe(later);
        expect((await store.roomLog.load('b')).updates.map((u) => [...u])).toEqual([[3]]);
      });

      it('compacts a room into a snapshot through an id, keeping what came after', async () => {
        const store = await start();
        const updates = keyUpdates(['k1', 'k2', 'k3', 'k4']);
        const [through] = await store.roomLog.appendRooms([{ roomId: 'r', updates: updates.slice(0, 3) }]);
        const before = await store.roomLog.load('r');
        const snapshot = Y.mergeUpdates([...before.updates]);
        await store.roomLog.appendRooms([{ roomId: 'r', updates: updates.slice(3) }]);
        await store.roomLog.compact('r', snapshot, through!);
        const after = await store.roomLog.load('r');
        expect([...after.snapshot!]).toEqual([...snapshot]);
        expect(after.updates.map((u) => [...u])).toEqual([[...updates[3]!]]);
        expect(after.logBytes).toBe(updates[3]!.length);
        expect(loadedKeys(after)).toEqual(['k1', 'k2', 'k3', 'k4']);
        // Compacting everything leaves the snapshot alone, and the last id stays the snapshot's.
        const all = Y.mergeUpdates([snapshot, updates[3]!]);
        await store.roomLog.compact('r', all, after.lastId);
        expect(await store.roomLog.load('r')).toMatchObject({ updates: [], logBytes: 0, lastId: after.lastId });
      });

      it('refuses malformed groups with StoreInputError and stores nothing of them', async () => {
        const store = await start();
        await store.roomLog.appendRooms([{ roomId: 'r', updates: [bytes(9)] }]);
        const bad: unknown[] = [
          'not an array',
          [{ roomId: 'r', updates: [bytes(1)] }, { roomId: '', updates: [bytes(1)] }],
          [{ roomId: 'r', updates: [bytes(1)] }, { roomId: 'x\0y', updates: [bytes(1)] }],
          [{ roomId: 'r'.repeat(129), updates: [bytes(1)] }],
          [{ roomId: 'r', updates: [] }],
          [{ roomId: 'r', updates: [bytes(1), new Uint8Array(0)] }],
          [{ roomId: 'r', updates: [bytes(1), 'text'] }],
          [{ roomId: 'r', updates: [bytes(1)] }, null],
        ];
        for (const batches of bad) await expect(store.roomLog.appendRooms(batches as RoomBatch[])).rejects.toBeInstanceOf(StoreInputError);
        await expect(store.roomLog.compact('r', new Uint8Array(0), 1)).rejects.toBeInstanceOf(StoreInputError);
        await expect(store.roomLog.compact('r', bytes(1), -1)).rejects.toBeInstanceOf(StoreInputError);
        await expect(store.roomLog.compact('r', bytes(1), 1.5)).rejects.toBeInstanceOf(StoreInputError);
        await expect(store.roomLog.load('')).rejects.toBeInstanceOf(StoreInputError);
        const r = await store.roomLog.load('r');
        expect(r.updates.map((u) => [...u])).toEqual([[9]]);
        expect(r.snapshot).toBeUndefined();
      });

      it('keeps every update when two instances append to the same rooms at once, in opposite room orders', async () => {
        const store = await start();
        const other = await second();
        const write = (s: SharedStore, tag: number, rooms: [string, string]) =>
          Promise.all(Array.from({ length: 40 }, (_, i) => s.roomLog.appendRooms([
            { roomId: rooms[0], updates: [bytes(tag, i)] },
            { roomId: rooms[1], updates: [bytes(tag, i)] },
          ])));
        await Promise.all([write(store, 1, ['x', 'y']), write(other, 2, ['y', 'x'])]);
        for (const room of ['x', 'y']) {
          const loaded = (await store.roomLog.load(room)).updates.map((u) => [...u]);
          expect(loaded).toHaveLength(80);
          // None of either instance's updates is lost or stored twice.
          for (const tag of [1, 2]) {
            const mine = loaded.filter((u) => u[0] === tag).map((u) => u[1]);
            expect(new Set(mine).size).toBe(40);
          }
        }
      });

      it('loses nothing when one instance compacts a room while another appends to it', async () => {
        const store = await start();
        const other = await second();
        const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
        const updates = keyUpdates(keys);
        let appended = 0;
        const writer = (async () => {
          for (const u of updates) {
            await store.roomLog.appendRooms([{ roomId: 'r', updates: [u] }]);
            appended++;
          }
        })();
        let compactions = 0;
        while (appended < updates.length || compactions < 3) {
          const state = await other.roomLog.load('r');
          if (state.updates.length === 0) {
            await new Promise((r) => setTimeout(r, 1));
            continue;
          }
          const merged = Y.mergeUpdates(state.snapshot ? [state.snapshot, ...state.updates] : [...state.updates]);
          await other.roomLog.compact('r', merged, state.lastId);
          compactions++;
        }
        await writer;
        expect(compactions).toBeGreaterThanOrEqual(3);
        expect(loadedKeys(await store.roomLog.load('r'))).toEqual([...keys].sort());
      });
    });

    describe('rooms', () => {
      it('creates a room with its role tokens, finds it by token, and replaces a token', async () => {
        const store = await start();
        expect(await store.rooms.count()).toBe(0);
        await store.rooms.create({ id: 'room1', title: 'Attention', createdAt: 1_700_000_000_000 }, hashes('room1'));
        expect(await store.rooms.count()).toBe(1);
        expect(await store.rooms.get('room1')).toEqual({ id: 'room1', title: 'Attention', createdAt: 1_700_000_000_000 });
        expect(await store.rooms.get('room2')).toBeUndefined();
        expect(await store.rooms.lookupToken(hash('room1:viewer'))).toEqual({ roomId: 'room1', role: 'viewer' });
        expect([...(await store.rooms.tokenHash('room1', 'owner'))!]).toEqual([...hash('room1:owner')]);
        await store.rooms.replaceToken('room1', 'viewer', hash('new viewer'));
        expect(await store.rooms.lookupToken(hash('room1:viewer'))).toBeUndefined();
        expect(await store.rooms.lookupToken(hash('new viewer'))).toEqual({ roomId: 'room1', role: 'viewer' });
      });

      it('refuses a second room with the same id or a token hash already used, changing nothing', async () => {
        const store = await start();
        await store.rooms.create({ id: 'room1', title: 'first', createdAt: 1 }, hashes('room1'));
        await expect(store.rooms.create({ id: 'room1', title: 'second', createdAt: 2 }, hashes('other'))).rejects.toThrow();
        await expect(store.rooms.create({ id: 'room2', title: 'second', createdAt: 2 }, { ...hashes('room2'), owner: hash('room1:owner') })).rejects.toThrow();
        expect(await store.rooms.count()).toBe(1);
        expect(await store.rooms.get('room1')).toEqual({ id: 'room1', title: 'first', createdAt: 1 });
        expect(await store.rooms.lookupToken(hash('other:owner'))).toBeUndefined();
        expect(await store.rooms.lookupToken(hash('room2:viewer'))).toBeUndefined();
      });

      it('checks a bound on the rooms with their count inside the creation, so that instances creating at once never pass it together', async () => {
        const store = await start();
        const other = await second();
        await store.rooms.create({ id: 'first', title: 'first', createdAt: 1 }, hashes('first'), (n) => expect(n).toBe(0));
        const atMostThree = (n: number) => {
          if (n >= 3) throw new Error(`bound reached at ${n}`);
        };
        const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
        const settled = await Promise.allSettled(ids.map((id, i) => (i % 2 === 0 ? store : other).rooms.create({ id, title: id, createdAt: 2 }, hashes(id), atMostThree)));
        expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
        for (const r of settled) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/bound reached at 3/);
        expect(await other.rooms.count()).toBe(3);
        // What was refused left no token behind.
        const created = ids.filter((_, i) => settled[i]!.status === 'fulfilled');
        for (const id of ids) expect(await store.rooms.lookupToken(hash(`${id}:owner`))).toEqual(created.includes(id) ? { roomId: id, role: 'owner' } : undefined);
      });

      it('refuses malformed rooms and tokens with StoreInputError', async () => {
        const store = await start();
        const { viewer: _viewer, ...twoRoles } = hashes('r');
        const cases: (() => Promise<unknown>)[] = [
          () => store.rooms.create({ id: 'r', title: 'nul\0title', createdAt: 1 }, hashes('r')),
          () => store.rooms.create({ id: 'r', title: 't', createdAt: -1 }, hashes('r')),
          () => store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, twoRoles as Record<Role, Buffer>),
          () => store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { ...hashes('r'), owner: Buffer.alloc(31) }),
          () => store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { ...hashes('r'), admin: hash('a') } as Record<Role, Buffer>),
          () => store.rooms.lookupToken(Buffer.from('short')),
          () => store.rooms.replaceToken('r', 'admin' as Role, hash('x')),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.rooms.count()).toBe(0);
      });
    });

    describe('job queue with leases', () => {
      it('leases the oldest eligible job, renews and finishes only the current attempt', async () => {
        const store = await start();
        const a = await store.jobs.enqueue('r', request(), 'owner', 3);
        clock.t += 1;
        const targeted = await store.jobs.enqueue('r', request('tpu-1'), 'owner', 3);
        expect(a.status).toBe('queued');
        const leased = await store.jobs.lease('run1', 'cpu-1', 1_000);
        expect(leased).toMatchObject({ id: a.id, status: 'running', attempt: 1, runnerId: 'run1', leaseExpiresAt: clock.t + 1_000 });
        expect(await store.jobs.lease('run2', 'cpu-2', 1_000)).toBeNull();
        expect(await store.jobs.lease('run3', 'tpu-1', 1_000)).toMatchObject({ id: targeted.id, runnerName: 'tpu-1' });
        expect(await store.jobs.renew('run2', a.id, 1, 5_000)).toBe(false);
        expect(await store.jobs.renew('run1', a.id, 1, 5_000)).toBe(true);
        expect(await store.jobs.setPhase('run1', a.id, 2, 'tracing')).toBeNull();
        expect(await store.jobs.setPhase('run1', a.id, 1, 'tracing')).toMatchObject({ phase: 'tracing' });
        expect((await store.jobs.heldBy('run1')).map((j) => j.id)).toEqual([a.id]);
        expect(await store.jobs.claimResult(a.id, 1)).toBe(true);
        expect(await store.jobs.claimResult(a.id, 1)).toBe(false);
        const done = await store.jobs.complete(a.id, ['doc1'], { runner: 'cpu-1' } as never, { k: 1 });
        expect(done).toMatchObject({ status: 'done', documents: ['doc1'], analyses: { k: 1 }, phase: null });
        expect(await store.jobs.cancel(a.id)).toBeNull();
        expect((await store.jobs.cancel(targeted.id))?.status).toBe('running');
        expect((await store.jobs.get(targeted.id))?.status).toBe('cancelled');
        expect((await store.jobs.listRoom('r')).map((j) => j.id)).toEqual([a.id, targeted.id]);
      });

      it('records what carrying a re-run\'s annotations over did, and refuses counts that are not counts', async () => {
        const store = await start();
        const job = await store.jobs.enqueue('r', request(), 'owner', 1);
        expect((await store.jobs.get(job.id))?.carried).toBeNull();
        await store.jobs.setCarried(job.id, { annotations: 3, detached: 1, notCarried: 2 });
        expect((await store.jobs.get(job.id))?.carried).toEqual({ annotations: 3, detached: 1, notCarried: 2 });
        const bad = [
          () => store.jobs.setCarried('cap\0', { annotations: 1, detached: 0, notCarried: 0 }),
          () => store.jobs.setCarried(job.id, { annotations: 1, detached: 2, notCarried: 0 }),
          () => store.jobs.setCarried(job.id, { annotations: -1, detached: 0, notCarried: 0 }),
          () => store.jobs.setCarried(job.id, { annotations: 1, detached: 0.5, notCarried: 0 }),
          () => store.jobs.setCarried(job.id, null as never),
        ];
        for (const c of bad) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect((await store.jobs.get(job.id))?.carried).toEqual({ annotations: 3, detached: 1, notCarried: 2 });
      });

      it('sweeps expired leases back into the queue, then fails them when attempts or waiting run out', async () => {
        const store = await start();
        const job = await store.jobs.enqueue('r', request(), 'owner', 2);
        await store.jobs.lease('run1', 'cpu-1', 1_000);
        clock.t += 1_001;
        const first = await store.jobs.sweep(60_000);
        expect(first.requeued.map((j) => j.id)).toEqual([job.id]);
        expect(first.requeued[0]).toMatchObject({ status: 'queued', runnerId: null });
        expect(await store.jobs.renew('run1', job.id, 1, 1_000)).toBe(false);
        await store.jobs.lease('run2', 'cpu-2', 1_000);
        clock.t += 1_001;
        const second = await store.jobs.sweep(60_000);
        expect(second.failed.map((j) => [j.id, j.status, j.error?.reason])).toEqual([[job.id, 'failed', 'runner-lost']]);

        const stranded = await store.jobs.enqueue('r', request(), 'owner', 3);
        await store.jobs.lease('run3', 'cpu-3', 1_000);
        clock.t += 1_001;
        await store.jobs.sweep(5_000);
        clock.t += 5_001;
        expect((await store.jobs.sweep(5_000)).failed.map((j) => j.id)).toEqual([stranded.id]);
      });

      it('never gives one job to two lessees leasing at once from two instances', async () => {
        const store = await start();
        const other = await second();
        const ids = new Set<string>();
        for (let i = 0; i < 20; i++) ids.add((await store.jobs.enqueue('r', request(), 'owner', 1)).id);
        const leaseMany = (s: SharedStore, who: string) => Promise.all(Array.from({ length: 15 }, (_, i) => s.jobs.lease(`${who}-${i}`, who, 60_000)));
        const [mine, theirs] = await Promise.all([leaseMany(store, 'a'), leaseMany(other, 'b')]);
        const leased = [...mine, ...theirs].filter((j) => j !== null);
        expect(leased).toHaveLength(20);
        expect(new Set(leased.map((j) => j.id))).toEqual(ids);
        const running = (await store.jobs.listRoom('r')).filter((j) => j.status === 'running');
        expect(running).toHaveLength(20);
        expect(running.every((j) => j.attempt === 1)).toBe(true);
      });

      it('refuses malformed job calls with StoreInputError and queues nothing', async () => {
        const store = await start();
        const cases: (() => Promise<unknown>)[] = [
          () => store.jobs.enqueue('', request(), 'owner', 3),
          () => store.jobs.enqueue('r', 'program' as never, 'owner', 3),
          () => store.jobs.enqueue('r', request(), 'owner', 0),
          () => store.jobs.enqueue('r', request(), 'own\0er', 3),
          () => store.jobs.lease('run', 'cpu', 0),
          () => store.jobs.renew('run', 'cap_x', 0, 1_000),
          () => store.jobs.complete('cap_x', 'doc' as never, {} as never, null),
          () => store.jobs.sweep(-1),
        ];
        for (const c of cases) await expect(c()).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.jobs.listRoom('r')).toEqual([]);
      });
    });
  });
}
