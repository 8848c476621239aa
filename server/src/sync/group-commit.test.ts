import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { CloseCode, encodeSyncMessage, MessageType, readAck } from '@seam/shared/protocol';
import { DEFAULT_LIMITS, SyncMode } from '../config';
import { Metrics } from '../metrics';
import { openStore, type RoomBatch, type Store } from '../store';
import { StoreUnavailableError } from '../store/store-errors';
import { Connection } from './connection';
import { GroupCommit, type RoomAppender } from './group-commit';
import { Room, RoomCommitError } from './room';
import { RecordingSocket } from './recording-socket';

/**
 * The group commit with an appender that answers later, as PostgreSQL does: the embedded store
 * below holds the rows, and each group's answer waits until the test releases it.
 */
class LateAppender implements RoomAppender {
  readonly groups: { batches: readonly RoomBatch[]; answer: (error?: Error) => void }[] = [];

  constructor(private readonly store: Store) {}

  appendRooms(batches: readonly RoomBatch[]): Promise<number[]> {
    return new Promise((resolve, reject) => {
      this.groups.push({
        batches,
        answer: (error) => (error ? reject(error) : resolve(this.store.updates.appendRooms(batches))),
      });
    });
  }
}

class FakeSocket extends RecordingSocket {
  /** `sync:N` for sync sub-message N, `ack:SEQ` for acks, in order. */
  kinds(): string[] {
    return this.sent.map((f) => {
      const d = decoding.createDecoder(f);
      const type = decoding.readVarUint(d);
      if (type === MessageType.sync) return `sync:${decoding.readVarUint(d)}`;
      if (type === MessageType.ack) return `ack:${readAck(d).seq}`;
      return `type:${type}`;
    });
  }
}

const note = (id: string): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
});

/** One client's successive updates, each adding an annotation. */
function clientUpdates(ids: string[]): Uint8Array[] {
  const d = new Y.Doc();
  const out: Uint8Array[] = [];
  d.on('update', (u: Uint8Array) => out.push(u));
  for (const id of ids) addAnnotation(d, note(id));
  return out;
}

const log = pino({ level: 'silent' });
const turn = () => new Promise((resolve) => setImmediate(resolve));
let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-group-'));
  store = openStore(dir, SyncMode.normal);
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const appender = new LateAppender(store);
  const metrics = new Metrics();
  const commits = new GroupCommit({ updates: appender, metrics, log, now: () => 0 });
  const room = new Room('r', { updates: store.updates, commits, metrics, limits: DEFAULT_LIMITS, compactCount: 500, compactBytes: 1 << 22, log });
  const connect = (ack = false) => {
    const socket = new FakeSocket();
    const conn = new Connection(socket, 'annotator', 'h', ack, DEFAULT_LIMITS, metrics);
    room.join(conn);
    return { socket, conn };
  };
  return { appender, room, connect };
}

describe('GroupCommit with an appender that answers later', () => {
  it('acknowledges and relays only after the commit answers, and queues what comes meanwhile into the next group, in order', async () => {
    const { appender, room, connect } = setup();
    const [a, b] = [connect(true), connect()];
    const [u1, u2, u3] = clientUpdates(['one', 'two', 'three']) as [Uint8Array, Uint8Array, Uint8Array];
    room.receive(a.conn, encodeSyncMessage(2, u1));
    await turn();
    expect(appender.groups).toHaveLength(1);
    // In flight: the next updates queue, and no second group starts for this room.
    room.receive(a.conn, encodeSyncMessage(2, u2));
    room.receive(a.conn, encodeSyncMessage(2, u3));
    await turn();
    expect(appender.groups).toHaveLength(1);
    expect(room.committing).toBe(true);
    expect([a.socket.kinds(), b.socket.kinds()]).toEqual([['sync:0'], ['sync:0']]);
    appender.groups[0]!.answer();
    await turn();
    // The first batch is acknowledged (seq 1, not 3) and relayed; the other two commit next, alone.
    expect([a.socket.kinds(), b.socket.kinds()]).toEqual([['sync:0', 'ack:1'], ['sync:0', 'sync:2']]);
    await turn();
    expect(appender.groups).toHaveLength(2);
    expect(appender.groups[1]!.batches).toEqual([{ roomId: 'r', updates: [u2, u3] }]);
    appender.groups[1]!.answer();
    await turn();
    expect([a.socket.kinds(), b.socket.kinds()]).toEqual([['sync:0', 'ack:1', 'ack:3'], ['sync:0', 'sync:2', 'sync:2', 'sync:2']]);
    const stored = new Y.Doc();
    for (const u of store.updates.load('r').updates) Y.applyUpdate(stored, u);
    expect(readAnnotations(stored).map((x) => x.id).sort()).toEqual(['one', 'three', 'two']);
    room.destroy();
  });

  it('answers a sync step 1 that arrives during a commit with the next one, holding what that commit made durable and nothing queued after', async () => {
    const { appender, room, connect } = setup();
    const [a, joiner] = [connect(), connect()];
    const [u1, u2, u3] = clientUpdates(['one', 'two', 'three']) as [Uint8Array, Uint8Array, Uint8Array];
    room.receive(a.conn, encodeSyncMessage(2, u1));
    await turn();
    room.receive(a.conn, encodeSyncMessage(2, u2));
    room.receive(joiner.conn, encodeSyncMessage(0, Y.encodeStateVector(new Y.Doc())));
    expect(joiner.socket.kinds()).toEqual(['sync:0']);
    appender.groups[0]!.answer();
    await turn();
    // The second group (u2) is taken with the answer encoded; u3 comes while it is in flight.
    expect(appender.groups).toHaveLength(2);
    room.receive(a.conn, encodeSyncMessage(2, u3));
    expect(joiner.socket.kinds()).toEqual(['sync:0', 'sync:2']);
    appender.groups[1]!.answer();
    await turn();
    const kinds = joiner.socket.kinds();
    expect(kinds.slice(0, 4)).toEqual(['sync:0', 'sync:2', 'sync:2', 'sync:1']);
    const step2 = joiner.socket.sent[3]!;
    const d = decoding.createDecoder(step2);
    decoding.readVarUint(d);
    decoding.readVarUint(d);
    const answered = new Y.Doc();
    Y.applyUpdate(answered, decoding.readVarUint8Array(d));
    expect(readAnnotations(answered).map((x) => x.id).sort()).toEqual(['one', 'two']);
    appender.groups[2]?.answer();
    await turn();
    room.destroy();
  });

  it('closes the room with 4500 and rejects its server writes when the commit is refused, acknowledging nothing', async () => {
    const { appender, room, connect } = setup();
    const a = connect(true);
    const written = room.transact((doc) => addAnnotation(doc, note('server')));
    room.receive(a.conn, encodeSyncMessage(2, clientUpdates(['client'])[0]!));
    await turn();
    expect(appender.groups.length).toBeGreaterThan(0);
    for (const g of appender.groups) g.answer(new StoreUnavailableError('roomLog.appendRooms', new Error('connection refused')));
    await expect(written).rejects.toThrow(RoomCommitError);
    await expect(written).rejects.toMatchObject({ cause: expect.any(StoreUnavailableError) });
    expect(a.socket.closedWith).toBe(CloseCode.serverError);
    expect(a.socket.kinds().filter((k) => k.startsWith('ack'))).toEqual([]);
    expect(room.broken).toBe(true);
    expect(store.updates.load('r').updates).toEqual([]);
    room.destroy();
  });

  it('resolves a server write once its commit has answered, not before', async () => {
    const { appender, room } = setup();
    let done = false;
    const written = room.transact((doc) => addAnnotation(doc, note('server'))).then(() => (done = true));
    await turn();
    expect(done).toBe(false);
    expect(appender.groups).toHaveLength(1);
    appender.groups[0]!.answer();
    await written;
    expect(store.updates.load('r').updates).toHaveLength(1);
    room.destroy();
  });
});
