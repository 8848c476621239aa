import * as awarenessProtocol from 'y-protocols/awareness';
import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { CloseCode, encodeSyncMessage, MessageType } from '@seam/shared/protocol';
import { DEFAULT_LIMITS, SyncMode } from '../config';
import { Metrics } from '../metrics';
import { openStore, type Store } from '../store';
import type { RoomLog } from '../store/shared-store';
import { BusKind } from './bus/frame';
import { LocalBusHub, LocalRoomBus } from './bus/local-bus';
import { Connection } from './connection';
import { Rooms } from './rooms';
import { serverClientId } from './writers';
import { RecordingSocket } from './recording-socket';

/** A socket that records the close code and the frames it was sent. */
class FakeSocket extends RecordingSocket {}

const log = pino({ level: 'silent' });
const HASH = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);

let dir: string;
let store: Store;
let hub: LocalBusHub;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-rooms-bus-'));
  store = openStore(dir, SyncMode.normal);
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
  hub = new LocalBusHub();
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A bus that publishes nothing: an instance whose messages are all lost. */
class MuteBus extends LocalRoomBus {
  override publish(): Promise<void> {
    return Promise.resolve();
  }
}

/** One instance: its rooms over the embedded store's log (as the shared one would be) and the hub. */
function instance(mute = false) {
  const roomLog: RoomLog = {
    load: async (id) => store.updates.load(id),
    appendRooms: async (batches) => store.updates.appendRooms(batches),
    compact: async (...args: Parameters<Store['updates']['compact']>) => store.updates.compact(...args),
  };
  const bus = mute ? new MuteBus(hub) : new LocalRoomBus(hub);
  const metrics = new Metrics();
  const rooms = new Rooms({ store, metrics, limits: DEFAULT_LIMITS, log, idleUnloadSeconds: 60, compactCount: 500, compactBytes: 1 << 22, roomLog, bus });
  const connect = async (tokenHash: string) => {
    const room = await rooms.load('r');
    const socket = new FakeSocket();
    const conn = new Connection(socket, 'owner', tokenHash, true, DEFAULT_LIMITS, metrics);
    rooms.join(room, conn);
    return { room, socket, conn };
  };
  return { rooms, bus, connect };
}

/** Lets the hub deliver what was published (it delivers on later microtasks). */
const delivered = () => new Promise((r) => setTimeout(r, 0));

describe('Rooms on a bus (scaled mode)', () => {
  it('closes the sockets of a rotated token on every instance holding the room, and only those', async () => {
    const [a, b] = [instance(), instance()];
    const here = await a.connect(HASH);
    const there = await b.connect(HASH);
    const kept = await b.connect(OTHER);
    expect(a.rooms.closeToken('r', HASH, CloseCode.tokenRevoked)).toBe(1);
    await delivered();
    expect([here.socket.closedWith, there.socket.closedWith, kept.socket.closedWith]).toEqual([CloseCode.tokenRevoked, CloseCode.tokenRevoked, undefined]);
    expect(there.room.conns.has(there.conn)).toBe(false);
  });

  it('ignores a closeToken frame that is not a token hash, closing nothing', async () => {
    const [a, b] = [instance(), instance()];
    await a.connect(HASH);
    const there = await b.connect(HASH);
    await a.bus.publish('r', BusKind.closeToken, new Uint8Array([1, 2, 3]));
    await delivered();
    expect(there.socket.closedWith).toBeUndefined();
    expect(there.room.conns.size).toBe(1);
  });

  it("answers a loading instance's query with its sockets' presence, and each refuses the other's server client ID", async () => {
    const a = instance();
    const present = await a.connect(HASH);
    const peer = new Y.Doc();
    const states = new awarenessProtocol.Awareness(peer);
    states.setLocalState({ user: { name: 'Ada' } });
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, MessageType.awareness);
    encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(states, [peer.clientID]));
    present.room.receive(present.conn, encoding.toUint8Array(e));
    const b = instance();
    const joined = await b.connect(OTHER);
    await delivered();
    await delivered();
    expect(joined.room.awareness.getStates().get(peer.clientID)).toEqual({ user: { name: 'Ada' } });
    // Instance b writes with its own server ID from now on; a's socket may not write with it, nor b's with a's.
    for (const [who, other] of [[present, b], [joined, a]] as const) {
      const forger = new Y.Doc();
      forger.clientID = serverClientId('r', other.bus.instanceId);
      forger.getMap('annotations').set('x', 1);
      who.room.receive(who.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(forger)));
      expect(who.room.doc.getMap('annotations').has('x')).toBe(false);
    }
  });

  it("knows the server client ID of an instance that held the room before, though none of its messages arrive", async () => {
    const a = instance(true);
    await a.connect(HASH);
    const b = instance();
    const joined = await b.connect(OTHER);
    await delivered();
    const forger = new Y.Doc();
    forger.clientID = serverClientId('r', a.bus.instanceId);
    forger.getMap('annotations').set('x', 1);
    joined.room.receive(joined.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(forger)));
    expect(joined.room.doc.getMap('annotations').has('x')).toBe(false);
  });

  it('fills from the log a gap left by an instance that committed updates and never published them', async () => {
    const [dead, live, other] = [instance(true), instance(), instance()];
    const held = await live.connect(HASH);
    const writer = new Y.Doc();
    const first = await dead.connect(OTHER);
    // Committed through the instance whose messages are lost: in the log, never on the bus.
    addAnnotation(writer, note('one'));
    first.room.receive(first.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(writer)));
    await waitUntil(() => store.updates.load('r').updates.length > 0);
    expect(ids(held.room.doc)).toEqual([]);
    // The writer goes on through a third instance: its step 1 makes that one catch up, then its next write is published.
    const again = await other.connect(OTHER);
    again.room.receive(again.conn, encodeSyncMessage(0, Y.encodeStateVector(writer)));
    const before = Y.encodeStateVector(writer);
    addAnnotation(writer, note('two'));
    await waitUntil(() => ids(other.rooms.get('r').doc).includes('one'));
    again.room.receive(again.conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(writer, before)));
    // The instance holding the room heard only the second write, which follows the first: it reads the log and has both.
    await waitUntil(() => ids(held.room.doc).includes('two'));
    expect(ids(held.room.doc)).toEqual(['one', 'two']);
    expect(held.room.doc.store.pendingStructs).toBeNull();
  });
});

const note = (id: string): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
});
const ids = (doc: Y.Doc) => readAnnotations(doc).map((a) => a.id).sort();

/** Waits (on real timers) until `check` holds, for at most two seconds. */
async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
