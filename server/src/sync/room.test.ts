import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addAnnotation, annotationsMap, readAnnotations, type Annotation } from '@seam/shared/model';
import { CloseCode, encodeSyncMessage, MessageType } from '@seam/shared/protocol';
import { DEFAULT_LIMITS, SyncMode } from '../config';
import { Metrics } from '../metrics';
import { openStore, UpdatesStore, type Store } from '../store';
import { Connection } from './connection';
import { GROUP_OPEN_MS, GroupCommit } from './group-commit';
import { COMPACT_FORCE_FACTOR, COMPACT_IDLE_MS, Room } from './room';
import { RecordingSocket } from './recording-socket';

const note = (id: string): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
});

/** A socket that records what the room sent it. */
class FakeSocket extends RecordingSocket {
  /** Sync sub-message types (0 step 1, 1 step 2, 2 update) of the sync frames received. */
  syncKinds(): number[] {
    return this.sent.flatMap((f) => {
      const d = decoding.createDecoder(f);
      return decoding.readVarUint(d) === MessageType.sync ? [decoding.readVarUint(d)] : [];
    });
  }
}

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-room-'));
  store = openStore(dir, SyncMode.normal);
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
  store.rooms.create({ id: 'r2', title: 't2', createdAt: 1 }, { owner: Buffer.alloc(32, 4), annotator: Buffer.alloc(32, 5), viewer: Buffer.alloc(32, 6) });
});
afterEach(() => {
  vi.useRealTimers();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const log = pino({ level: 'silent' });
/** A clock that stands still: no group stays open long enough to commit before the end of its turn. */
const still = () => 0;

function setup(updates: UpdatesStore, compactBytes = 1 << 22, id = 'r', commits = new GroupCommit({ updates, metrics: new Metrics(), log, now: still })) {
  const metrics = new Metrics();
  const room = new Room(id, { updates, commits, metrics, limits: DEFAULT_LIMITS, compactCount: 500, compactBytes, log });
  const connect = () => {
    const socket = new FakeSocket();
    const conn = new Connection(socket, 'annotator', 'h', false, DEFAULT_LIMITS, metrics);
    room.join(conn);
    return { socket, conn };
  };
  return { room, connect };
}

function annotationUpdate(id: string): Uint8Array {
  const d = new Y.Doc();
  addAnnotation(d, note(id));
  return Y.encodeStateAsUpdate(d);
}

describe('Room', () => {
  it('commits a queued update before answering a sync step 1 that arrives in the same tick', () => {
    const { room, connect } = setup(store.updates);
    const a = connect();
    const b = connect();
    room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('early')));
    room.receive(b.conn, encodeSyncMessage(0, Y.encodeStateVector(new Y.Doc())));
    expect(store.updates.load('r').updates.length).toBeGreaterThan(0);
    expect(b.socket.syncKinds()).toEqual([0, 2, 1]);
    const replay = new Y.Doc();
    for (const u of store.updates.load('r').updates) Y.applyUpdate(replay, u);
    expect(readAnnotations(replay).map((x) => x.id)).toEqual(['early']);
    room.destroy();
  });

  it('stores and relays a client update byte for byte as it came, less structs the server holds, and a server transaction as Yjs encodes it', () => {
    const { room, connect } = setup(store.updates);
    const a = connect();
    const b = connect();
    const client = new Y.Doc();
    addAnnotation(client, note('first'));
    const first = Y.encodeStateAsUpdate(client);
    room.receive(a.conn, encodeSyncMessage(2, first));
    // A resend that also carries what the server has: the repeated structs are neither stored nor
    // relayed (a peer that lacks them would take their content from the resend, unchecked).
    const held = Y.encodeStateVector(room.doc);
    addAnnotation(client, note('second'));
    const update = Y.encodeStateAsUpdate(client);
    room.receive(a.conn, encodeSyncMessage(2, update));
    room.transact((doc) => addAnnotation(doc, note('by-server')));
    const stored = store.updates.load('r').updates.map((u) => new Uint8Array(u));
    expect(stored[0]).toEqual(first);
    expect(stored[1]).toEqual(Y.diffUpdate(update, held));
    expect(stored[1]?.length).toBeLessThan(update.length);
    expect(b.socket.sent.at(-2)).toEqual(encodeSyncMessage(2, Y.diffUpdate(update, held)));
    const replay = new Y.Doc();
    for (const u of stored) Y.applyUpdate(replay, u);
    expect(readAnnotations(replay).map((x) => x.id).sort()).toEqual(['by-server', 'first', 'second']);
    expect(b.socket.syncKinds()).toEqual([0, 2, 2, 2]);
    room.destroy();
  });

  it('broadcasts nothing and closes every socket when the commit fails', () => {
    const failing = Object.create(store.updates) as UpdatesStore;
    failing.appendRooms = () => {
      throw new Error('disk full');
    };
    const { room, connect } = setup(failing);
    const a = connect();
    const b = connect();
    room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('lost')));
    room.flush();
    expect(b.socket.syncKinds()).toEqual([0]);
    expect([a.socket.closedWith, b.socket.closedWith]).toEqual([CloseCode.serverError, CloseCode.serverError]);
    expect(room.broken).toBe(true);
    expect(store.updates.load('r').updates).toEqual([]);
  });

  it('stores and relays what Yjs applied of a client update when it throws while applying it, and lets the error reach the caller', () => {
    const { room, connect } = setup(store.updates);
    const a = connect();
    const b = connect();
    // A fault input cannot cause past the guard: an observer of the room's document throws once
    // Yjs has integrated the update, inside `applyUpdate`.
    let doc: Y.Doc | undefined;
    room.transact((d) => (doc = d));
    let fail = true;
    if (doc) annotationsMap(doc).observeDeep(() => {
      if (fail) throw new Error('observer fault');
    });
    expect(() => room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('applied')))).toThrow('observer fault');
    fail = false;
    room.flush();
    const replay = new Y.Doc();
    for (const u of store.updates.load('r').updates) Y.applyUpdate(replay, u);
    expect(readAnnotations(replay).map((x) => x.id)).toEqual(['applied']);
    const relayed = new Y.Doc();
    for (const f of b.socket.sent.slice(1)) {
      const d = decoding.createDecoder(f);
      if (decoding.readVarUint(d) === MessageType.sync && decoding.readVarUint(d) === 2) Y.applyUpdate(relayed, decoding.readVarUint8Array(d));
    }
    expect(readAnnotations(relayed).map((x) => x.id)).toEqual(['applied']);
    expect(room.broken).toBe(false);
    room.destroy();
  });

  it('commits the updates of two rooms that arrive in the same tick in one transaction, then broadcasts in each', async () => {
    let transactions = 0;
    const counting = Object.create(store.updates) as UpdatesStore;
    counting.appendRooms = (batches) => {
      transactions += 1;
      return store.updates.appendRooms(batches);
    };
    const commits = new GroupCommit({ updates: counting, metrics: new Metrics(), log, now: still });
    const one = setup(counting, 1 << 22, 'r', commits);
    const two = setup(counting, 1 << 22, 'r2', commits);
    const [a1, b1, a2, b2] = [one.connect(), one.connect(), two.connect(), two.connect()];
    one.room.receive(a1.conn, encodeSyncMessage(2, annotationUpdate('in-r')));
    two.room.receive(a2.conn, encodeSyncMessage(2, annotationUpdate('in-r2')));
    expect(b1.socket.syncKinds()).toEqual([0]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(transactions).toBe(1);
    expect([b1.socket.syncKinds(), b2.socket.syncKinds()]).toEqual([[0, 2], [0, 2]]);
    expect([store.updates.load('r').updates.length, store.updates.load('r2').updates.length]).toEqual([1, 1]);
    for (const r of [one.room, two.room]) r.destroy();
  });

  it('commits and broadcasts a group that has been open GROUP_OPEN_MS at the next update, before its turn ends', async () => {
    let now = 0;
    const one = setup(store.updates, 1 << 22, 'r', new GroupCommit({ updates: store.updates, metrics: new Metrics(), log, now: () => now }));
    const [a, b] = [one.connect(), one.connect()];
    one.room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('first')));
    now = GROUP_OPEN_MS - 0.5;
    one.room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('second')));
    expect(b.socket.syncKinds()).toEqual([0]);
    now = GROUP_OPEN_MS;
    one.room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('third')));
    // The three are on disk and relayed now; the next update opens a new group for the end of the turn.
    expect(b.socket.syncKinds()).toEqual([0, 2, 2, 2]);
    expect(store.updates.load('r').updates.length).toBe(3);
    one.room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('fourth')));
    expect(b.socket.syncKinds()).toEqual([0, 2, 2, 2]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.socket.syncKinds()).toEqual([0, 2, 2, 2, 2]);
    expect(store.updates.load('r').updates.length).toBe(4);
    one.room.destroy();
  });

  it('broadcasts nothing in any room of the group when one room\'s insert fails, and stores none of it', async () => {
    // A real failure of the shared transaction: SQLite refuses the second room's row.
    store.db.exec(`CREATE TRIGGER refuse_r2 BEFORE INSERT ON room_updates WHEN NEW.room_id = 'r2' BEGIN SELECT RAISE(ABORT, 'disk refuses r2'); END`);
    const commits = new GroupCommit({ updates: store.updates, metrics: new Metrics(), log, now: still });
    const one = setup(store.updates, 1 << 22, 'r', commits);
    const two = setup(store.updates, 1 << 22, 'r2', commits);
    const [a1, b1, a2, b2] = [one.connect(), one.connect(), two.connect(), two.connect()];
    one.room.receive(a1.conn, encodeSyncMessage(2, annotationUpdate('in-r')));
    two.room.receive(a2.conn, encodeSyncMessage(2, annotationUpdate('in-r2')));
    await new Promise((resolve) => setImmediate(resolve));
    expect([b1.socket.syncKinds(), b2.socket.syncKinds()]).toEqual([[0], [0]]);
    expect([a1, b1, a2, b2].map((x) => x.socket.closedWith)).toEqual(Array(4).fill(CloseCode.serverError));
    expect([one.room.broken, two.room.broken]).toEqual([true, true]);
    expect([store.updates.load('r').updates, store.updates.load('r2').updates]).toEqual([[], []]);
  });

  it('compacts the log into a snapshot once the room is idle past the byte threshold, and reloads from it', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { room, connect } = setup(store.updates, 400);
    const a = connect();
    room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('small')));
    room.flush();
    const d = new Y.Doc();
    addAnnotation(d, { ...note('big'), body: 'y'.repeat(500) });
    room.receive(a.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(d)));
    room.flush();
    vi.advanceTimersByTime(COMPACT_IDLE_MS - 1);
    expect(store.updates.load('r').snapshot).toBeUndefined();
    vi.advanceTimersByTime(1);
    const stored = store.updates.load('r');
    expect(stored.snapshot).toBeDefined();
    expect(stored.updates).toEqual([]);
    room.leave(a.conn);
    room.destroy();
    const reloaded = setup(store.updates).room;
    expect(readAnnotations(reloaded.doc).map((x) => x.id).sort()).toEqual(['big', 'small']);
    reloaded.destroy();
  });

  it('puts off the compaction while commits keep coming, but not past four times the threshold', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { room, connect } = setup(store.updates, 400);
    const a = connect();
    const d = new Y.Doc();
    let last = 0;
    d.on('update', (u: Uint8Array) => {
      last = u.length;
      room.receive(a.conn, encodeSyncMessage(2, u));
      room.flush();
    });
    let written = 0;
    while (written + last < 400 * COMPACT_FORCE_FACTOR) {
      vi.advanceTimersByTime(COMPACT_IDLE_MS / 2);
      expect(store.updates.load('r').snapshot).toBeUndefined();
      addAnnotation(d, { ...note(`n${written}`), body: 'z'.repeat(200) });
      written += last;
    }
    addAnnotation(d, { ...note('over'), body: 'z'.repeat(200) });
    expect(store.updates.load('r').snapshot).toBeDefined();
    room.leave(a.conn);
    room.destroy();
  });

  it('compacts a room whose log is past a threshold when it unloads', () => {
    const { room, connect } = setup(store.updates, 400);
    const a = connect();
    const d = new Y.Doc();
    addAnnotation(d, { ...note('big'), body: 'y'.repeat(500) });
    room.receive(a.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(d)));
    room.flush();
    expect(store.updates.load('r').snapshot).toBeUndefined();
    room.leave(a.conn);
    room.destroy();
    expect(store.updates.load('r')).toMatchObject({ updates: [], snapshot: expect.any(Uint8Array) });
  });
});
