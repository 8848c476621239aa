import * as Y from 'yjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { DEFAULT_LIMITS, SyncMode, type Limits } from '../../config';
import { Metrics } from '../../metrics';
import { openStore, type Store } from '../../store';
import { GroupCommit } from '../../sync/group-commit';
import { Room } from '../../sync/room';
import { HistoryRowKind, type HistoryStore } from './history-store';

const log = pino({ level: 'silent' });
const note = (id: string, body = 'b'): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body,
  author: { id: 'u', name: 'U', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
});

let dir: string;
let store: Store;
const open = () => openStore(dir, SyncMode.normal);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-history-'));
  store = open();
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function room(s: Store, limits: Partial<Limits> = {}, compactCount = 500): Room {
  const commits = new GroupCommit({ updates: s.updates, metrics: new Metrics(), log, now: () => 0 });
  return new Room('r', { updates: s.updates, commits, metrics: new Metrics(), limits: { ...DEFAULT_LIMITS, ...limits }, compactCount, compactBytes: 1 << 22, log });
}

/** The document as the history rebuilds it through time `to`: its base, then every update up to then, page by page. */
function rebuild(h: HistoryStore, to = Number.MAX_SAFE_INTEGER, pageSize = 7): { doc: Y.Doc; updates: number; presenter: number } {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, h.start('r', Date.now()).base);
  let after;
  let updates = 0;
  let presenter = 0;
  for (;;) {
    const page = h.page('r', 0, to, after, pageSize, 1 << 20);
    for (const r of page.rows) {
      if (r.kind === HistoryRowKind.update) {
        Y.applyUpdate(doc, r.data);
        updates += 1;
      } else presenter += 1;
    }
    const last = page.rows.at(-1);
    if (!page.more || !last) break;
    after = { at: last.at, id: last.id };
  }
  return { doc, updates, presenter };
}
const ids = (d: Y.Doc) => readAnnotations(d).map((a) => a.id).sort();

describe('room history', () => {
  it('keeps every committed update with its time through compaction and a reload, and rebuilds the document from it', () => {
    const r = room(store, {}, 3);
    const before = Date.now();
    for (let i = 0; i < 10; i++) r.transact((doc) => addAnnotation(doc, note(`n${i}`)));
    r.destroy();
    expect(store.updates.load('r').updates.length).toBeLessThan(10);
    store.close();
    store = open();
    const again = room(store);
    again.transact((doc) => addAnnotation(doc, note('after-reload')));
    const rebuilt = rebuild(store.updates.history);
    expect(rebuilt.updates).toBe(11);
    expect(ids(rebuilt.doc)).toEqual(ids(again.doc));
    const start = store.updates.history.start('r', Date.now());
    expect(start.dropped).toBe(false);
    expect(start.startsAt).toBeGreaterThanOrEqual(before);
    const rows = store.updates.history.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 100, 1 << 20).rows;
    expect(rows.map((x) => x.at)).toEqual([...rows.map((x) => x.at)].sort((a, b) => a - b));
    again.destroy();
  });

  it('replays a room older than its history from the document it had when the history started', () => {
    const d = new Y.Doc();
    addAnnotation(d, note('before-history'));
    // As if written before the history existed: straight into the log, with no history row.
    store.db.prepare('INSERT INTO room_updates (room_id, data) VALUES (?, ?)').run('r', Y.encodeStateAsUpdate(d));
    expect(store.updates.history.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 10, 1 << 20).rows).toEqual([]);
    const r = room(store);
    r.transact((doc) => addAnnotation(doc, note('with-history')));
    const rebuilt = rebuild(store.updates.history);
    expect(rebuilt.updates).toBe(1);
    expect(ids(rebuilt.doc)).toEqual(['before-history', 'with-history']);
    r.destroy();
  });

  it('drops the oldest entries past the byte bound, merging them into where the history now starts', () => {
    const r = room(store, { historyBytes: 4096 });
    for (let i = 0; i < 40; i++) r.transact((doc) => addAnnotation(doc, note(`n${i}`, 'x'.repeat(200))));
    const h = store.updates.history;
    const start = h.start('r', Date.now());
    expect(start.dropped).toBe(true);
    const rows = h.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 1000, 1 << 24).rows;
    const bytes = rows.reduce((n, x) => n + x.data.length, 0);
    expect(bytes).toBeLessThanOrEqual(4096);
    expect(rows.length).toBeLessThan(40);
    expect(start.startsAt).toBeLessThanOrEqual(rows[0]?.at ?? 0);
    // What was dropped lives on in the base: the rebuilt document still has all forty.
    expect(ids(rebuild(h).doc)).toEqual(ids(r.doc));
    expect(ids(r.doc)).toHaveLength(40);
    r.destroy();
  });

  it('drops entries older than the age bound', () => {
    const h = store.updates.history;
    const d = new Y.Doc();
    const updates: Uint8Array[] = [];
    d.on('update', (u: Uint8Array) => updates.push(u));
    for (let i = 0; i < 6; i++) addAnnotation(d, note(`n${i}`));
    updates.forEach((u, i) => h.recordUpdates('r', [u], 1_000 + i * 60_000));
    expect(h.trim('r', { historyBytes: 1 << 20, historySeconds: 3600 }, 1_000 + 5 * 60_000)).toBe(0);
    expect(h.trim('r', { historyBytes: 1 << 20, historySeconds: 150 }, 1_000 + 5 * 60_000)).toBe(3);
    const rows = h.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 100, 1 << 20).rows;
    expect(rows.map((x) => x.at)).toEqual([181_000, 241_000, 301_000]);
    expect(h.start('r', 0)).toMatchObject({ dropped: true, startsAt: 121_000, endsAt: 301_000 });
    expect(ids(rebuild(h).doc)).toEqual(ids(d));
  });

  it('pages a time range in order, resuming after the last entry, and never stamps an entry before the one before it', () => {
    const h = store.updates.history;
    const d = new Y.Doc();
    const updates: Uint8Array[] = [];
    d.on('update', (u: Uint8Array) => updates.push(u));
    for (let i = 0; i < 5; i++) addAnnotation(d, note(`n${i}`));
    h.recordUpdates('r', updates.slice(0, 3), 5_000);
    h.recordUpdates('r', updates.slice(3), 4_000);
    const all = h.page('r', 0, 10_000, undefined, 100, 1 << 20).rows;
    expect(all.map((x) => x.at)).toEqual([5_000, 5_000, 5_000, 5_000, 5_000]);
    const first = h.page('r', 0, 10_000, undefined, 2, 1 << 20);
    expect(first.more).toBe(true);
    const last = first.rows.at(-1);
    if (!last) throw new Error('no rows');
    const second = h.page('r', 0, 10_000, { at: last.at, id: last.id }, 10, 1 << 20);
    expect([...first.rows, ...second.rows].map((x) => x.id)).toEqual(all.map((x) => x.id));
    expect(second.more).toBe(false);
    expect(h.page('r', 6_000, 10_000, undefined, 10, 1 << 20).rows).toEqual([]);
    expect(h.page('r', 0, 4_999, undefined, 10, 1 << 20).rows).toEqual([]);
    // A byte bound cuts a page after its first entry, never before it.
    expect(h.page('r', 0, 10_000, undefined, 10, 1).rows).toHaveLength(1);
  });
});
