import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Y from 'yjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { addDocument, connectClient, createRoom, listAnnotations, startTestServer, waitFor, type TestClient, type TestServer } from '../helpers';
import { startTarget, TargetKind, type SyncTarget } from '../helpers/scale/target';

const author = { id: 'u1', name: 'Ada', color: '#123456' };
const note = (id: string, docId = 'd', body = 'note'): Annotation => ({
  id, docId, from: 0, to: 4, quote: { prefix: '', exact: 'HloM', suffix: '' }, kind: 'note', body, author, createdAt: Date.now(), resolved: false, replies: [],
});

const open: { clients: TestClient[]; servers: TestServer[] } = { clients: [], servers: [] };
afterEach(async () => {
  for (const c of open.clients.splice(0)) c.destroy();
  for (const s of open.servers.splice(0)) await s.close();
});
async function server(opts: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer(opts);
  open.servers.push(s);
  return s;
}
function client(...args: Parameters<typeof connectClient>) {
  const c = connectClient(...args);
  open.clients.push(c);
  return c;
}
const ids = (c: TestClient) => readAnnotations(c.doc).map((a) => a.id).sort();

describe('room server sync', () => {
  it('converges two clients and brings a late joiner up to date', async () => {
    const s = await server();
    const room = await createRoom(s);
    const a = client(s, room.id, room.tokens.annotator);
    const b = client(s, room.id, room.tokens.owner);
    await Promise.all([a.synced(), b.synced()]);
    addAnnotation(a.doc, note('from-a'));
    addAnnotation(b.doc, note('from-b'));
    b.doc.getText('notes').insert(0, 'shared notes');
    await waitFor(() => ids(a).length === 2 && ids(b).length === 2 && a.doc.getText('notes').toString() !== '', 'convergence');
    expect(ids(a)).toEqual(['from-a', 'from-b']);
    const c = client(s, room.id, room.tokens.viewer);
    await c.synced();
    expect(ids(c)).toEqual(['from-a', 'from-b']);
    expect(c.doc.getText('notes').toString()).toBe('shared notes');
    expect(c.doc.getMap('settings').get('title')).toBe('test room');
    addAnnotation(a.doc, note('after-c'));
    await waitFor(() => ids(c).includes('after-c'), 'the third client to get the new annotation');
    const d = client(s, room.id, room.tokens.viewer);
    await d.synced();
    expect(ids(d)).toEqual(['after-c', 'from-a', 'from-b']);
  });

  it('shows REST-created annotations to live clients and lists client-created ones over REST', async () => {
    const s = await server();
    const room = await createRoom(s);
    const dumpId = await addDocument(s, room.id, room.tokens.annotator, 'dump', 'HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n');
    const a = client(s, room.id, room.tokens.annotator);
    await a.synced();
    await waitFor(() => a.doc.getMap('documents').has(dumpId), 'the document list to reach the client');
    const res = await fetch(`${s.url}/api/rooms/${room.id}/annotations`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docId: dumpId, from: 0, to: 9, kind: 'fusion', body: 'from REST' }),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Annotation;
    expect(created.quote.exact).toBe('HloModule');
    await waitFor(() => ids(a).includes(created.id), 'the REST annotation on the live client');
    addAnnotation(a.doc, note('from-client', dumpId, 'typed in the browser'));
    let list: Annotation[] = [];
    await waitFor(async () => {
      list = await listAnnotations(s, room.id, room.tokens.viewer);
      return list.some((x) => x.id === 'from-client');
    }, 'the client annotation over REST');
    expect(list.map((x) => x.id).sort()).toEqual([created.id, 'from-client'].sort());
    expect(list.find((x) => x.id === 'from-client')?.body).toBe('typed in the browser');
  });

  it('acknowledges each update after commit with the persisted clock of its author', async () => {
    const s = await server();
    const room = await createRoom(s);
    const a = client(s, room.id, room.tokens.annotator, { ack: true });
    const stock = client(s, room.id, room.tokens.annotator);
    await Promise.all([a.synced(), stock.synced()]);
    for (let i = 0; i < 5; i++) addAnnotation(a.doc, note(`n${i}`));
    const clock = Y.getState(a.doc.store, a.doc.clientID);
    await waitFor(() => a.acks.some((k) => k.entries.some((e) => e.clientID === a.doc.clientID && e.clock === clock)), 'an ack covering every update');
    const last = a.acks.at(-1)!;
    expect(last.seq).toBeGreaterThanOrEqual(5);
    expect(stock.acks).toEqual([]);
    const seqs = a.acks.map((k) => k.seq);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    const db = new Database(join(s.dataDir, 'seam.db'), { readonly: true });
    const rows = db.prepare('SELECT data FROM room_updates WHERE room_id = ?').all(room.id) as { data: Buffer }[];
    const snap = db.prepare('SELECT data FROM room_snapshots WHERE room_id = ?').get(room.id) as { data: Buffer } | undefined;
    db.close();
    const replay = new Y.Doc();
    if (snap) Y.applyUpdate(replay, snap.data);
    for (const r of rows) Y.applyUpdate(replay, r.data);
    expect(Y.getState(replay.store, a.doc.clientID)).toBe(clock);
  });

  it('relays awareness, including a viewer’s, and removes it when the socket leaves', async () => {
    const s = await server();
    const room = await createRoom(s);
    const viewer = client(s, room.id, room.tokens.viewer);
    const other = client(s, room.id, room.tokens.annotator);
    await Promise.all([viewer.synced(), other.synced()]);
    viewer.provider.awareness.setLocalStateField('user', { name: 'Vi' });
    await waitFor(() => other.provider.awareness.getStates().get(viewer.doc.clientID)?.user !== undefined, 'viewer presence');
    viewer.provider.disconnect();
    await waitFor(() => !other.provider.awareness.getStates().has(viewer.doc.clientID), 'viewer presence to go');
  });

  it('keeps everything across restarts, with the log compacted into a snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seam-restart-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startTestServer({ dataDir, env: { SEAM_COMPACT_COUNT: '10' } });
    const room = await createRoom(first);
    const a = connectClient(first, room.id, room.tokens.annotator, { ack: true });
    await a.synced();
    for (let i = 0; i < 35; i++) addAnnotation(a.doc, note(`k${i}`));
    const clock = Y.getState(a.doc.store, a.doc.clientID);
    await waitFor(() => a.acks.some((k) => k.entries.some((e) => e.clock === clock)), 'all acked');
    a.destroy();
    await first.close();
    const db = new Database(join(dataDir, 'seam.db'), { readonly: true });
    const logRows = (db.prepare('SELECT count(*) AS n FROM room_updates WHERE room_id = ?').get(room.id) as { n: number }).n;
    const snaps = (db.prepare('SELECT count(*) AS n FROM room_snapshots WHERE room_id = ?').get(room.id) as { n: number }).n;
    db.close();
    expect(snaps).toBe(1);
    expect(logRows).toBeLessThan(10);
    const second = await server({ dataDir });
    const b = client(second, room.id, room.tokens.viewer);
    await b.synced();
    expect(ids(b)).toHaveLength(35);
  });

  it('unloads an idle room and reloads it from disk on the next connection', async () => {
    const s = await server({ env: { SEAM_IDLE_UNLOAD_S: '0' } });
    const room = await createRoom(s);
    const loadedRooms = async () => Number((await (await fetch(`${s.url}/metrics`)).text()).match(/^seam_loaded_rooms (\d+)$/m)?.[1]);
    const a = connectClient(s, room.id, room.tokens.annotator, { ack: true });
    await a.synced();
    expect(await loadedRooms()).toBe(1);
    addAnnotation(a.doc, note('before-unload'));
    const clock = Y.getState(a.doc.store, a.doc.clientID);
    await waitFor(() => a.acks.some((k) => k.entries.some((e) => e.clock === clock)), 'the ack');
    a.destroy();
    await waitFor(async () => (await loadedRooms()) === 0, 'the room to unload');
    const b = client(s, room.id, room.tokens.viewer);
    await b.synced();
    expect(ids(b)).toEqual(['before-unload']);
    expect(await loadedRooms()).toBe(1);
  });
});

/**
 * Presence on both targets. In scaled mode the room is loaded on instance 1 only when the joiner
 * arrives there, after the present client set its state on instance 0: the joiner can have that
 * state only by asking the other holders on load, since the present client's next renewal (which
 * would carry it anyway) has not happened, as its unchanged clock shows.
 */
describe.each(Object.values(TargetKind))('presence (%s)', (kind) => {
  let t: SyncTarget;
  beforeAll(async () => {
    t = await startTarget(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("shows a joiner everyone's presence at once, including that of people on other instances", async () => {
    const room = await createRoom(t);
    const present = client(t.at(0), room.id, room.tokens.annotator);
    const witness = client(t.at(0), room.id, room.tokens.viewer);
    await Promise.all([present.synced(), witness.synced()]);
    present.provider.awareness.setLocalStateField('user', { name: 'Here first' });
    const clock = present.provider.awareness.meta.get(present.doc.clientID)!.clock;
    await waitFor(() => witness.provider.awareness.meta.get(present.doc.clientID)?.clock === clock, 'the presence to reach its instance');
    const joiner = client(t.at(1), room.id, room.tokens.viewer);
    await joiner.synced();
    await waitFor(() => joiner.provider.awareness.getStates().has(present.doc.clientID), "the present client's state at the joiner");
    expect(joiner.provider.awareness.getStates().get(present.doc.clientID)).toEqual({ user: { name: 'Here first' } });
    expect(joiner.provider.awareness.meta.get(present.doc.clientID)?.clock).toBe(clock);
    expect(present.provider.awareness.meta.get(present.doc.clientID)?.clock).toBe(clock);
  });
});
