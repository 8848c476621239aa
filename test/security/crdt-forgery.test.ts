import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayWrite, RoomKey, type Role } from '@seam/shared/model';
import { encodeSyncMessage, MessageType, readAck, readRefused } from '@seam/shared/protocol';
import { openDatabase, serverClientId, StructKind, SyncMode, writeUpdate, type StructSpec } from '@seam/server';
import { addDocument, connectClient, createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { healthzDuring } from '../helpers/healthz';
import { rawSocket, type RawSocket } from '../helpers/sync-client';
import { startTarget, TargetKind, type SyncTarget } from '../helpers/scale/target';

/**
 * Forged CRDT writes, tried as an attacker would against a real server on port 0 with SQLite on
 * disk: Yjs updates that reuse other client IDs (the server's, the owner's, another member's) at
 * clocks below, across and past what the server holds, name items under every key of the room
 * schema as parent, origin or right origin, delete others' items, and carry garbage. Each run
 * sends them over a real socket with each role's token, then unloads the room (which compacts it
 * to one snapshot) and has a fresh client load it again: the keys the role may not write must be
 * exactly as they were, and what the fresh client sees must be what the live clients saw.
 */

const KEYS = Object.values(RoomKey);
const ROLES: readonly Role[] = ['owner', 'annotator', 'viewer'];
/** Root names an attacker may give as parent: every key of the schema and one outside it. */
const NAMES = [...KEYS, 'secrets'];
const SUBS = ['locked', 'allowAnnotatorCapture', 'title', 'clientId', 'name', 'a1', 'x'];
const DUMP = 'HloModule m\n\nENTRY main {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n';
const CAPTURE = { program: 'import jax\n\n\ndef f(x):\n    return -x\n', entry: 'f', args: [{ shape: [4], dtype: 'float32' }], capture: ['jaxpr'] };

let server: TestServer;
let db: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  server = await startTestServer({
    env: { SEAM_IDLE_UNLOAD_S: '0', SEAM_COMPACT_COUNT: '1', SEAM_ROOMS_PER_MIN: '1000', SEAM_UPDATES_PER_S: '1000', SEAM_UPDATE_BURST: '1000' },
  });
  db = openDatabase(server.dataDir, SyncMode.normal);
});
afterAll(async () => {
  db?.close();
  await server?.close();
});

/** The root key an integrated item hangs under, or undefined for one whose parent is gone. */
function rootOf(item: Y.Item): string | undefined {
  let type = item.parent as Y.AbstractType<unknown> | null;
  while (type?._item) type = type._item.parent as Y.AbstractType<unknown> | null;
  return type ? Y.findRootTypeKey(type) : undefined;
}

/**
 * Everything under `key`, clock by clock, so that splits and merges do not matter: who wrote it at
 * which clock, under which parent and map key, deleted or with what content.
 */
function structure(doc: Y.Doc, key: string): string[] {
  const out: string[] = [];
  for (const structs of doc.store.clients.values()) {
    for (const s of structs) {
      if (!(s instanceof Y.Item) || rootOf(s) !== key) continue;
      const parent = (s.parent as Y.AbstractType<unknown>)._item?.id;
      const where = `${parent ? `${parent.client}:${parent.clock}` : key}/${s.parentSub ?? ''}`;
      const content = s.deleted ? [] : s.content.getContent();
      for (let i = 0; i < s.length; i += 1) {
        const value = content[i] instanceof Y.AbstractType ? 'type' : JSON.stringify(content[i] ?? null);
        out.push(`${s.id.client}:${s.id.clock + i} ${where} ${s.deleted ? 'deleted' : value}`);
      }
    }
  }
  return out.sort();
}

/** What a person sees of every key. */
function visible(doc: Y.Doc): Record<string, unknown> {
  return Object.fromEntries(KEYS.map((k) => [k, k === RoomKey.notes ? doc.getText(k).toString() : doc.getMap(k).toJSON()]));
}

const sameState = (a: Y.Doc, b: Y.Doc) => Buffer.from(Y.encodeStateVector(a)).equals(Buffer.from(Y.encodeStateVector(b)));

/**
 * A raw socket speaking the y-websocket protocol with `?ack=1`, keeping a replica of what the
 * server holds (its step 2, what others broadcast, and its own accepted updates) to aim at.
 */
class Attacker {
  readonly mirror = new Y.Doc();
  private readonly socket: RawSocket;
  private seen = 0;
  private acked = 0;
  private readonly refusals: string[] = [];
  private sent = 0;
  private steps2 = 0;

  /** `at`: the server (or instance) it dials; the file's embedded server by default. */
  constructor(roomId: string, token: string, at: { readonly url: string } = server) {
    this.socket = rawSocket(at, roomId, `token=${token}&ack=1`);
  }

  async open(): Promise<void> {
    await this.socket.opened();
    this.socket.ws.send(encodeSyncMessage(0, Y.encodeStateVector(new Y.Doc())));
    await waitFor(() => this.read() > 0, 'the attacker to sync');
  }

  /** The replica, with every frame received so far applied. */
  current(): Y.Doc {
    this.read();
    return this.mirror;
  }

  /** Reads the frames received so far; returns how many step 2 messages were applied. */
  private read(): number {
    for (; this.seen < this.socket.received.length; this.seen += 1) {
      const d = decoding.createDecoder(this.socket.received[this.seen] as Uint8Array);
      const type = decoding.readVarUint(d);
      if (type === MessageType.ack) this.acked = readAck(d).seq;
      else if (type === MessageType.refused) this.refusals.push(readRefused(d).reason);
      else if (type === MessageType.sync) {
        const sub = decoding.readVarUint(d);
        const payload = decoding.readVarUint8Array(d);
        if (sub === 1) this.steps2 += 1;
        if (sub !== 0) Y.applyUpdate(this.mirror, payload);
      }
    }
    return this.steps2;
  }

  /** Sends one update and waits for its ack; returns the refusal reason, or undefined when accepted. */
  async send(update: Uint8Array): Promise<string | undefined> {
    const before = this.refusals.length;
    this.sent += 1;
    this.socket.ws.send(encodeSyncMessage(2, update));
    await waitFor(() => (this.read(), this.acked >= this.sent), 'the ack of a hostile update');
    const refused = this.refusals[before];
    if (refused === undefined) Y.applyUpdate(this.mirror, update);
    return refused;
  }

  close(): void {
    this.socket.ws.close();
  }
}

/** A name an attacker gives: an item of some key (a clock inside it), a root name, a struct nobody has, or none. */
type Name = { t: 'item'; key: number; pick: number } | { t: 'root'; key: number } | { t: 'missing' } | { t: 'none' };
/** One hostile update: a struct with a chosen client, clock and names, or a stock forger's edit, and maybe a delete. */
interface Forgery {
  readonly client: number;
  readonly at: 'below' | 'straddle' | 'state' | 'ahead';
  readonly len: number;
  readonly origin: Name;
  readonly rightOrigin: Name;
  readonly parent: Name;
  readonly sub: string | null;
  readonly gc: boolean;
  readonly content: readonly (boolean | string | number)[];
  readonly stock: number | null;
  readonly del: { key: number; pick: number } | null;
}

const nameArb: fc.Arbitrary<Name> = fc.oneof(
  fc.record({ t: fc.constant('item' as const), key: fc.nat(KEYS.length - 1), pick: fc.nat(1000) }),
  fc.record({ t: fc.constant('root' as const), key: fc.nat(NAMES.length - 1) }),
  fc.constant({ t: 'missing' as const }),
  fc.constant({ t: 'none' as const }),
);
const forgeryArb: fc.Arbitrary<Forgery> = fc.record({
  client: fc.nat(4),
  at: fc.constantFrom('below' as const, 'straddle' as const, 'state' as const, 'ahead' as const),
  len: fc.integer({ min: 1, max: 3 }),
  origin: nameArb,
  rightOrigin: nameArb,
  parent: nameArb,
  sub: fc.option(fc.constantFrom(...SUBS)),
  gc: fc.boolean(),
  content: fc.array(fc.oneof(fc.boolean(), fc.string({ maxLength: 3 }), fc.integer()), { minLength: 3, maxLength: 3 }),
  stock: fc.option(fc.nat(KEYS.length - 1)),
  del: fc.option(fc.record({ key: fc.nat(KEYS.length - 1), pick: fc.nat(1000) })),
});

/** Every item of the replica with the key it hangs under. */
function catalog(doc: Y.Doc): Map<string, Y.Item[]> {
  const byKey = new Map<string, Y.Item[]>();
  for (const structs of doc.store.clients.values()) {
    for (const s of structs) {
      const key = s instanceof Y.Item ? rootOf(s) : undefined;
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), s as Y.Item]);
    }
  }
  return byKey;
}

/** Builds the update of one forgery against what the server holds (`mirror`). */
function forge(f: Forgery, mirror: Y.Doc, clients: readonly number[]): Uint8Array {
  const client = clients[f.client % clients.length] as number;
  const items = catalog(mirror);
  const itemId = (key: number, pick: number) => {
    const list = items.get(KEYS[key] as string) ?? [];
    const item = list[pick % Math.max(1, list.length)];
    return item ? { client: item.id.client, clock: item.id.clock + (pick % item.length) } : null;
  };
  const state = Y.getState(mirror.store, client);
  if (f.stock !== null) {
    // What a stock Yjs client writes when it is given someone else's client ID.
    const forger = new Y.Doc();
    forger.clientID = client;
    const key = KEYS[f.stock] as string;
    if (key === RoomKey.notes) forger.getText(key).insert(0, 'forged');
    else forger.getMap(key).set(f.sub ?? 'x', f.content[0] ?? true);
    const update = Y.encodeStateAsUpdate(forger);
    forger.destroy();
    return update;
  }
  const back = Math.min(state, f.len);
  const [clock, length] =
    f.at === 'below' && back > 0 ? [state - back, back]
      : f.at === 'straddle' && back > 0 ? [state - back, back + f.len]
        : f.at === 'ahead' ? [state + 1, f.len]
          : [state, f.len];
  const id = { client, clock };
  const ref = (n: Name) => (n.t === 'item' ? itemId(n.key, n.pick) : n.t === 'missing' ? { client: 987654, clock: 3 } : null);
  const struct: StructSpec = f.gc
    ? { kind: StructKind.gc, id, length }
    : {
        kind: StructKind.item, id,
        origin: ref(f.origin), rightOrigin: ref(f.rightOrigin),
        parent: f.parent.t === 'root' ? NAMES[f.parent.key] : (ref(f.parent) ?? RoomKey.annotations),
        parentSub: f.sub,
        content: Array.from({ length }, (_, i) => f.content[i % f.content.length]),
      };
  const target = f.del ? itemId(f.del.key, f.del.pick) : null;
  return writeUpdate([struct], target ? new Map([[target.client, [{ clock: target.clock, len: 1 }]]]) : new Map());
}

/**
 * A room as people use it: the server's document entry and a queued capture, the owner's settings,
 * presenter, notes and program, an annotator's annotation. The people have left (their client IDs
 * are free to take, for those the guard lets take them); `watcher` is a viewer's live copy. Live
 * copies are raw replicas: a stock provider whose own client ID someone else writes with (a member
 * with the same link may, by design) gets a new one from Yjs and then throws when destroyed.
 */
async function legitimateRoom(): Promise<{ room: CreatedRoom; watcher: Attacker; ownerId: number; annotatorId: number }> {
  const room = await createRoom(server);
  await addDocument(server, room.id, room.tokens.owner, 'dump', DUMP);
  const capture = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify(CAPTURE),
  });
  expect(capture.status).toBe(202);
  const owner = connectClient(server, room.id, room.tokens.owner, { ack: true });
  const annotator = connectClient(server, room.id, room.tokens.annotator, { ack: true });
  await owner.synced();
  await annotator.synced();
  owner.doc.transact(() => {
    const settings = owner.doc.getMap(RoomKey.settings);
    settings.set('allowAnnotatorCapture', false);
    settings.set('title', 'Owned');
    owner.doc.getMap(RoomKey.presenter).set('clientId', owner.doc.clientID);
    owner.doc.getMap(RoomKey.presenter).set('name', 'Ada');
    owner.doc.getText(RoomKey.notes).insert(0, 'owner notes');
    owner.doc.getMap(RoomKey.programs).set('p', new Y.Text('x = 1'));
  });
  annotator.doc.getMap(RoomKey.annotations).set('a1', new Y.Map<unknown>([['body', 'hi']]));
  await waitFor(
    () => sameState(owner.doc, annotator.doc) && owner.doc.getMap(RoomKey.captures).size === 1 && owner.doc.getMap(RoomKey.documents).size === 1
      && owner.doc.getMap(RoomKey.annotations).has('a1') && annotator.doc.getMap(RoomKey.settings).get('title') === 'Owned',
    'the legitimate room',
  );
  const watcher = new Attacker(room.id, room.tokens.viewer);
  await watcher.open();
  await waitFor(() => sameState(watcher.current(), owner.doc), 'the watcher to sync');
  owner.destroy();
  annotator.destroy();
  return { room, watcher, ownerId: owner.doc.clientID, annotatorId: annotator.doc.clientID };
}

const loadedRooms = async () => Number((await (await fetch(`${server.url}/metrics`)).text()).match(/^seam_loaded_rooms (\d+)$/m)?.[1]);

/** Closes every socket, waits for the room to unload (its log compacted into one snapshot), and joins it afresh. */
async function reload(room: CreatedRoom, sockets: readonly Attacker[]): Promise<Y.Doc> {
  for (const s of sockets) s.close();
  await waitFor(async () => (await loadedRooms()) === 0, 'the room to unload');
  const log = db.prepare('SELECT count(*) AS n FROM room_updates WHERE room_id = ?').get(room.id) as { n: number };
  const snapshot = db.prepare('SELECT count(*) AS n FROM room_snapshots WHERE room_id = ?').get(room.id) as { n: number };
  expect({ log: log.n, snapshot: snapshot.n }).toEqual({ log: 0, snapshot: 1 });
  const fresh = connectClient(server, room.id, room.tokens.viewer);
  await fresh.synced();
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(fresh.doc));
  fresh.destroy();
  return doc;
}

describe('forged CRDT writes', () => {
  for (const role of ROLES) {
    const guarded = KEYS.filter((k) => !mayWrite(role, k, false));

    it(`as ${role}: change none of ${guarded.join(', ')}, survive compaction and reload, and leave nobody diverged`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(forgeryArb, { minLength: 1, maxLength: 4 }), async (forgeries) => {
          const { room, watcher, ownerId, annotatorId } = await legitimateRoom();
          const before = Object.fromEntries(guarded.map((k) => [k, structure(watcher.mirror, k)]));
          const seen = visible(watcher.mirror);
          const attacker = new Attacker(room.id, room.tokens[role]);
          try {
            await attacker.open();
            const clients = [serverClientId(room.id), ownerId, annotatorId, 424242, 777];
            for (const f of forgeries) await attacker.send(forge(f, attacker.mirror, clients));
            await waitFor(() => sameState(watcher.current(), attacker.mirror), 'the live copy to catch up');
          } finally {
            attacker.close();
          }
          const live = visible(watcher.mirror);
          for (const k of guarded) expect(structure(watcher.mirror, k)).toEqual(before[k]);
          const reloaded = await reload(room, [watcher]);
          expect(visible(reloaded)).toEqual(live);
          for (const k of guarded) {
            expect(structure(reloaded, k)).toEqual(before[k]);
            expect(visible(reloaded)[k]).toEqual(seen[k]);
          }
          reloaded.destroy();
        }),
        { numRuns: 15 },
      );
    }, 120_000);
  }

  it("keeps annotator captures off after the attack of the report: the owner's client ID across its clock, compaction, reload", async () => {
    const { room, watcher, ownerId } = await legitimateRoom();
    const attacker = new Attacker(room.id, room.tokens.annotator);
    await attacker.open();
    const state = Y.getState(attacker.mirror.store, ownerId);
    const annotation = (catalog(attacker.mirror).get(RoomKey.annotations) ?? [])[0] as Y.Item;
    const straddle = writeUpdate([{ kind: StructKind.item, id: { client: ownerId, clock: state - 1 }, origin: annotation.id, content: ['x', true] }]);
    expect(await attacker.send(straddle)).toBe('clock-overlap');
    const taken = writeUpdate([{ kind: StructKind.item, id: { client: ownerId, clock: state }, parent: RoomKey.annotations, parentSub: 'z', content: [true] }]);
    expect(await attacker.send(taken)).toBe('client-taken');
    const reloaded = await reload(room, [attacker, watcher]);
    expect(reloaded.getMap(RoomKey.settings).get('allowAnnotatorCapture')).toBe(false);
    const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' }, body: JSON.stringify(CAPTURE),
    });
    expect(res.status).toBe(403);
    reloaded.destroy();
  });

  it('keeps offline edits that a stock client replays with the same token while its old socket still lives; refuses its ID to another token', async () => {
    const room = await createRoom(server);
    const doc = new Y.Doc();
    // The old socket: it wrote with the client's ID and the server has not seen it close.
    const old = new Attacker(room.id, room.tokens.annotator);
    await old.open();
    doc.getMap(RoomKey.annotations).set('before', 1);
    const sentBefore = Y.encodeStateVector(doc);
    expect(await old.send(Y.encodeStateAsUpdate(doc))).toBeUndefined();
    // Offline edits, replayed by the stock client on connecting.
    doc.getMap(RoomKey.annotations).set('offline', 2);
    const other = new Attacker(room.id, room.tokens.owner);
    await other.open();
    const stolen = new Y.Doc();
    Y.applyUpdate(stolen, Y.encodeStateAsUpdate(doc));
    stolen.clientID = doc.clientID;
    stolen.getMap(RoomKey.annotations).set('stolen', 3);
    expect(await other.send(Y.encodeStateAsUpdate(stolen, sentBefore))).toBe('client-taken');
    other.close();
    const client = connectClient(server, room.id, room.tokens.annotator, { ack: true, doc });
    await client.synced();
    const viewer = connectClient(server, room.id, room.tokens.viewer);
    await waitFor(() => viewer.doc.getMap(RoomKey.annotations).get('offline') === 2, 'the offline edit to reach others');
    expect(client.refused).toEqual([]);
    expect(viewer.doc.getMap(RoomKey.annotations).toJSON()).toEqual({ before: 1, offline: 2 });
    old.close();
    client.destroy();
    viewer.destroy();
  });

  it('answers /healthz in under 100 ms while forged updates arrive', async () => {
    const { room, watcher, ownerId } = await legitimateRoom();
    const attacker = new Attacker(room.id, room.tokens.annotator);
    await attacker.open();
    const watch = await healthzDuring(server, async () => {
      const refusals: (string | undefined)[] = [];
      for (let i = 0; i < 150; i += 1) {
        const state = Y.getState(attacker.mirror.store, ownerId);
        const forged = writeUpdate([{ kind: StructKind.item, id: { client: ownerId, clock: state - 1 }, parent: RoomKey.settings, parentSub: 'allowAnnotatorCapture', content: [i, true] }]);
        refusals.push(await attacker.send(forged));
      }
      return refusals;
    });
    expect(new Set(watch.result)).toEqual(new Set(['clock-overlap']));
    expect(watch.worstMs).toBeLessThan(100);
    attacker.close();
    watcher.close();
  });
});

/**
 * The cases whose outcome depends on which instance holds what, on both targets: embedded, and two
 * instances on one PostgreSQL and Redis with the attacker on instance 1 and the server writes on
 * instance 0. The property runs above stay embedded only: the guard that judges each update is
 * the same code on every instance, and their reload check reads the embedded store's tables.
 */
describe.each(Object.values(TargetKind))('forged CRDT writes across instances (%s)', (kind) => {
  let t: SyncTarget;
  beforeAll(async () => {
    t = await startTarget(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("refuses the client ID another instance writes the room with, to every role, while it lives", async () => {
    const room = await createRoom(t);
    // The dump is ingested through the attacker's instance: instance 0's server ID then writes
    // nothing but an annotation, a key an annotator may write too.
    await addDocument(t.at(1), room.id, room.tokens.owner, 'dump', DUMP);
    const attacker = new Attacker(room.id, room.tokens.annotator, t.at(1));
    const owner = new Attacker(room.id, room.tokens.owner, t.at(1));
    await Promise.all([attacker.open(), owner.open()]);
    const docId = (await (await fetch(`${t.url}/api/rooms/${room.id}?token=${room.tokens.owner}`)).json() as { documents: { id: string }[] }).documents[0]!.id;
    const res = await fetch(`${t.at(0).url}/api/rooms/${room.id}/annotations`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docId, from: 0, to: 8, kind: 'note', body: 'by the server' }),
    });
    expect(res.status).toBe(201);
    await waitFor(() => (catalog(attacker.current()).get(RoomKey.annotations) ?? []).length > 0, 'the server-written annotation');
    const serverId = (catalog(attacker.mirror).get(RoomKey.annotations) ?? [])[0]!.id.client;
    // The premise: embedded, one server ID wrote both; scaled, another instance's ID wrote the annotation alone.
    const ingestId = (catalog(attacker.mirror).get(RoomKey.documents) ?? [])[0]!.id.client;
    expect(serverId === ingestId).toBe(kind === TargetKind.embedded);
    for (const who of [attacker, owner]) {
      const state = Y.getState(who.current().store, serverId);
      const forged = writeUpdate([{ kind: StructKind.item, id: { client: serverId, clock: state }, parent: RoomKey.annotations, parentSub: 'z', content: [true] }]);
      expect(await who.send(forged)).toBe('client-taken');
    }
    attacker.close();
    owner.close();
  });
});
