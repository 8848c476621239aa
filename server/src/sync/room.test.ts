import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { CloseCode, encodeSyncMessage, MessageType } from '@seam/shared/protocol';
import { DEFAULT_LIMITS, SyncMode } from '../config';
import { Metrics } from '../metrics';
import { openStore, UpdatesStore, type Store } from '../store';
import { Connection, type SocketLike } from './connection';
import { Room } from './room';

const note = (id: string): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
});

/** A socket that records what the room sent it. */
class FakeSocket implements SocketLike {
  readonly sent: Uint8Array[] = [];
  closedWith: number | undefined;
  send(data: Uint8Array): void {
    this.sent.push(data);
  }
  close(code: number): void {
    this.closedWith = code;
  }
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
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function setup(updates: UpdatesStore, compactBytes = 1 << 22) {
  const metrics = new Metrics();
  const room = new Room('r', { updates, metrics, limits: DEFAULT_LIMITS, compactCount: 500, compactBytes, log: pino({ level: 'silent' }) });
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

  it('broadcasts nothing and closes every socket when the commit fails', () => {
    const failing = Object.create(store.updates) as UpdatesStore;
    failing.append = () => {
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

  it('compacts the log into a snapshot once it passes the byte threshold, and reloads from it', () => {
    const { room, connect } = setup(store.updates, 400);
    const a = connect();
    room.receive(a.conn, encodeSyncMessage(2, annotationUpdate('small')));
    room.flush();
    expect(store.updates.load('r').snapshot).toBeUndefined();
    const d = new Y.Doc();
    addAnnotation(d, { ...note('big'), body: 'y'.repeat(500) });
    room.receive(a.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(d)));
    room.flush();
    const stored = store.updates.load('r');
    expect(stored.snapshot).toBeDefined();
    expect(stored.updates).toEqual([]);
    room.leave(a.conn);
    room.destroy();
    const reloaded = setup(store.updates).room;
    expect(readAnnotations(reloaded.doc).map((x) => x.id).sort()).toEqual(['big', 'small']);
    reloaded.destroy();
  });
});
