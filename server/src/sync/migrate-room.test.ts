import * as Y from 'yjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addAnnotation, annotationsMap, annotationToVersion1YMap, isVersion1Annotation, readAnnotations, RoomKey, roomVersion, SettingKey, type Annotation,
} from '@seam/shared/model';
import { encodeSyncMessage } from '@seam/shared/protocol';
import { DEFAULT_LIMITS, SyncMode } from '../config';
import { Metrics } from '../metrics';
import { openStore, type Store, type UpdatesStore } from '../store';
import { Connection, type SocketLike } from './connection';
import { GroupCommit } from './group-commit';
import { needsMigration } from './migrate-room';
import { Room } from './room';

const author = { id: 'u', name: 'U', color: '#000000' };
const v1Annotations: Annotation[] = [
  {
    id: 'full', docId: 'd', from: 3, to: 9, quote: { prefix: 'ab', exact: 'fusion', suffix: '.3' }, kind: 'spill', body: 'edited body', editedAt: 5,
    author, createdAt: 1, resolved: true, instruction: '%fusion.3', bytes: 1024, traffic: 2048,
    replies: [{ id: 'r1', body: 'first', author, createdAt: 2 }, { id: 'r2', body: 'second, edited', author, createdAt: 3, editedAt: 4 }],
  },
  {
    id: 'trace', docId: 't', from: 0, to: 0, quote: { prefix: '', exact: '', suffix: '' }, kind: 'note', body: 'slow', author, createdAt: 2,
    resolved: false, replies: [], trace: { type: 'op', op: 'fusion.3', module: 'jit_f' }, carried: { annotationId: 'old', docId: 'd0', detached: true },
  },
];

class NullSocket implements SocketLike {
  send(): void {}
  close(): void {}
}

let dir: string;
let store: Store;
const log = pino({ level: 'silent' });
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-migrate-'));
  store = openStore(dir, SyncMode.normal);
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function load(updates: UpdatesStore = store.updates): Room {
  const commits = new GroupCommit({ updates, metrics: new Metrics(), log, now: () => 0 });
  return new Room('r', { updates, commits, metrics: new Metrics(), limits: DEFAULT_LIMITS, compactCount: 500, compactBytes: 1 << 22, log });
}

/** The room as stored: its snapshot and log replayed into a fresh document. */
function stored(): Y.Doc {
  const doc = new Y.Doc();
  const state = store.updates.load('r');
  if (state.snapshot) Y.applyUpdate(doc, state.snapshot);
  for (const u of state.updates) Y.applyUpdate(doc, u);
  return doc;
}

/** Writes the room as an annotator client of version 1 did: its maps sent over the sync protocol and stored by the server. */
function writeVersion1Room(): Annotation[] {
  const room = load();
  const conn = new Connection(new NullSocket(), 'annotator', 'h', false, DEFAULT_LIMITS, new Metrics());
  room.join(conn);
  const client = new Y.Doc();
  client.transact(() => {
    for (const a of v1Annotations) annotationsMap(client).set(a.id, annotationToVersion1YMap(a));
    // A malformed version-1 map, which readers skip: the migration leaves it.
    const bad = new Y.Map<unknown>();
    annotationsMap(client).set('bad', bad);
    bad.set('id', 'bad');
  });
  room.receive(conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(client)));
  // A version-2 client in the same room before the migration.
  const modern = new Y.Doc();
  Y.applyUpdate(modern, Y.encodeStateAsUpdate(client));
  addAnnotation(modern, { ...v1Annotations[1]!, id: 'modern', createdAt: 3 });
  room.receive(conn, encodeSyncMessage(2, Y.encodeStateAsUpdate(modern, Y.encodeStateVector(client))));
  room.leave(conn);
  room.destroy();
  const before = readAnnotations(stored());
  expect(before.map((a) => a.id)).toEqual(['full', 'trace', 'modern']);
  expect(needsMigration(stored())).toBe(true);
  return before;
}

describe('migrating a room document to version 2 on load', () => {
  it('rewrites every version-1 annotation in one stored server write, unchanged to readers, and records the version', () => {
    const before = writeVersion1Room();
    const rows = store.updates.load('r').updates.length;
    const room = load();
    expect(store.updates.load('r').updates.length).toBe(rows + 1);
    expect(readAnnotations(room.doc)).toEqual(before);
    expect(roomVersion(room.doc)).toBe(2);
    const map = annotationsMap(room.doc);
    expect(['full', 'trace', 'modern'].map((id) => isVersion1Annotation(map.get(id)))).toEqual([false, false, false]);
    expect(isVersion1Annotation(map.get('bad'))).toBe(true);
    room.destroy();
    const replay = stored();
    expect(readAnnotations(replay)).toEqual(before);
    expect(replay.getMap(RoomKey.settings).get(SettingKey.version)).toBe(2);
  });

  it('does not migrate again on the next load', () => {
    writeVersion1Room();
    load().destroy();
    const state = store.updates.load('r');
    const sv = Y.encodeStateVector(stored());
    const room = load();
    expect(store.updates.load('r').updates.length).toBe(state.updates.length);
    expect(Y.encodeStateVector(room.doc)).toEqual(sv);
    room.destroy();
  });

  it('writes nothing for a room that holds no version-1 annotation', () => {
    const first = load();
    first.transact((doc) => addAnnotation(doc, { ...v1Annotations[0]!, id: 'v2' }));
    first.destroy();
    const rows = store.updates.load('r').updates.length;
    const room = load();
    expect(store.updates.load('r').updates.length).toBe(rows);
    expect(roomVersion(room.doc)).toBe(1);
    room.destroy();
  });

  it('writes nothing for a room whose only version-1 maps are malformed (readers skip them in either form)', () => {
    const first = load();
    first.transact((doc) => annotationsMap(doc).set('bad', new Y.Map<unknown>([['body', 'hi']])));
    first.destroy();
    const rows = store.updates.load('r').updates.length;
    const room = load();
    expect(store.updates.load('r').updates.length).toBe(rows);
    expect(roomVersion(room.doc)).toBe(1);
    room.destroy();
  });

  it('fails the load and stores nothing when the migration cannot be committed, and migrates at the next load', () => {
    const before = writeVersion1Room();
    const rows = store.updates.load('r').updates.length;
    const failing = Object.create(store.updates) as UpdatesStore;
    failing.appendRooms = () => {
      throw new Error('disk full');
    };
    expect(() => load(failing)).toThrow(/could not commit/);
    expect(store.updates.load('r').updates.length).toBe(rows);
    const room = load();
    expect(readAnnotations(room.doc)).toEqual(before);
    expect(roomVersion(room.doc)).toBe(2);
    room.destroy();
  });
});
