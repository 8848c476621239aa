import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Y from 'yjs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  addAnnotation, addReply, annotationsMap, annotationToVersion1YMap, isVersion1Annotation, readAnnotations, roomVersion, setBody, setResolved, type Annotation,
} from '@seam/shared/model';
import { connectClient, createRoom, listAnnotations, startTestServer, waitFor, type TestClient, type TestServer } from '../helpers';

const ada = { id: 'u1', name: 'Ada', color: '#123456' };
const note = (id: string, createdAt: number): Annotation => ({
  id, docId: 'd', from: 0, to: 4, quote: { prefix: '', exact: 'HloM', suffix: 'odule' }, kind: 'note', body: `note ${id}`, author: ada, createdAt,
  resolved: false, replies: [], instruction: '%fusion.3',
});

const open: { clients: TestClient[]; servers: TestServer[] } = { clients: [], servers: [] };
afterEach(async () => {
  for (const c of open.clients.splice(0)) c.destroy();
  for (const s of open.servers.splice(0)) await s.close();
});
async function server(dataDir: string) {
  const s = await startTestServer({ dataDir });
  open.servers.push(s);
  return s;
}
async function client(...args: Parameters<typeof connectClient>) {
  const c = connectClient(...args);
  open.clients.push(c);
  await c.synced();
  return c;
}
async function stop(s: TestServer) {
  for (const c of open.clients.splice(0)) c.destroy();
  open.servers.splice(open.servers.indexOf(s), 1);
  await s.close();
}

describe('a room of room-document version 1 after an upgrade', () => {
  it('is migrated once when it loads, and stock clients old and new see every annotation unchanged and keep writing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seam-migration-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));

    // Before: a client of version 1 writes its maps, replies and resolutions, and the server stores them.
    let s = await server(dataDir);
    const room = await createRoom(s);
    const old = await client(s, room.id, room.tokens.annotator, { ack: true });
    old.doc.transact(() => {
      for (let i = 0; i < 20; i += 1) annotationsMap(old.doc).set(`n${i}`, annotationToVersion1YMap(note(`n${i}`, i + 1)));
    });
    addReply(old.doc, 'n0', { id: 'r1', body: 'a reply', author: ada, createdAt: 30 });
    setResolved(old.doc, 'n1', true);
    setBody(old.doc, 'n2', 'edited', 31);
    const before = readAnnotations(old.doc);
    expect(before).toHaveLength(20);
    expect(annotationsMap(old.doc).get('n0')?.get('replies')).toBeInstanceOf(Y.Array);
    await waitFor(() => old.acks.length > 0 && old.acks.at(-1)?.entries.find((e) => e.clientID === old.doc.clientID)?.clock === Y.getState(old.doc.store, old.doc.clientID), 'the writes to be acknowledged');
    const offline = old.doc;
    await stop(s);

    // After: the room loads migrated; a fresh stock client and the REST API read what was written.
    s = await server(dataDir);
    const fresh = await client(s, room.id, room.tokens.viewer);
    expect(readAnnotations(fresh.doc)).toEqual(before);
    expect(await listAnnotations(s, room.id, room.tokens.viewer)).toEqual(before);
    expect(roomVersion(fresh.doc)).toBe(2);
    expect([...annotationsMap(fresh.doc).values()].filter((m) => isVersion1Annotation(m))).toEqual([]);

    // The old client reconnects with its replica of version 1, takes the migration, and writes on.
    const back = await client(s, room.id, room.tokens.annotator, { doc: offline, ack: true });
    expect(readAnnotations(back.doc)).toEqual(before);
    addReply(back.doc, 'n0', { id: 'r2', body: 'after the upgrade', author: ada, createdAt: 40 });
    addAnnotation(back.doc, note('late', 50));
    await waitFor(() => readAnnotations(fresh.doc).find((a) => a.id === 'n0')?.replies.length === 2 && readAnnotations(fresh.doc).length === 21, 'the writes to reach the fresh client');
    expect(isVersion1Annotation(annotationsMap(fresh.doc).get('late'))).toBe(false);
    const after = readAnnotations(fresh.doc);
    expect(after.find((a) => a.id === 'n0')?.replies.map((r) => r.body)).toEqual(['a reply', 'after the upgrade']);
    await stop(s);

    // A second load finds nothing to migrate: the room's state is what it was.
    s = await server(dataDir);
    const again = await client(s, room.id, room.tokens.viewer);
    const sv = Y.encodeStateVector(again.doc);
    expect(readAnnotations(again.doc).map((a) => a.id)).toEqual(after.map((a) => a.id));
    await stop(s);
    s = await server(dataDir);
    const third = await client(s, room.id, room.tokens.viewer);
    expect(Y.encodeStateVector(third.doc)).toEqual(sv);
  });
});
