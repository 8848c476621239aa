import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, RoomKey, SettingKey } from '@seam/shared/model';
import { encodeSyncMessage, MessageType } from '@seam/shared/protocol';
import { connectClient, createRoom, note, messageType, rawSocket, startTestServer, waitFor, type CreatedRoom, type TestClient, type TestServer } from '../helpers';

let s: TestServer;
const clients: TestClient[] = [];
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await s.close();
});

async function client(room: CreatedRoom, token: string, ack = true): Promise<TestClient> {
  const c = connectClient(s, room.id, token, { ack });
  clients.push(c);
  await c.synced();
  return c;
}

async function setLocked(owner: TestClient, locked: boolean): Promise<void> {
  owner.doc.getMap(RoomKey.settings).set(SettingKey.locked, locked);
  const clock = Y.getState(owner.doc.store, owner.doc.clientID);
  await waitFor(() => owner.acks.some((a) => a.entries.some((e) => e.clientID === owner.doc.clientID && e.clock >= clock)), 'the lock to be durable');
}

describe('a refused update is reported to clients that opted in', () => {
  it('sends "locked" once for a write to a locked room, then "gap" for each later write of that client', async () => {
    const room = await createRoom(s);
    const owner = await client(room, room.tokens.owner);
    const annotator = await client(room, room.tokens.annotator);
    await setLocked(owner, true);
    await waitFor(() => annotator.doc.getMap(RoomKey.settings).get(SettingKey.locked) === true, 'the annotator to see the lock');

    addAnnotation(annotator.doc, note('while-locked'));
    await waitFor(() => annotator.refused.length === 1, 'the refusal');
    expect(annotator.refused).toEqual(['locked']);

    await setLocked(owner, false);
    await waitFor(() => annotator.doc.getMap(RoomKey.settings).get(SettingKey.locked) === false, 'the annotator to see the unlock');
    addAnnotation(annotator.doc, note('after-unlock'));
    addAnnotation(annotator.doc, note('after-unlock-2'));
    await waitFor(() => annotator.refused.length === 3, 'two more refusals');
    expect(annotator.refused).toEqual(['locked', 'gap', 'gap']);
    expect(readAnnotations(owner.doc).map((a) => a.id)).toEqual([]);

    // What the message is for: the client drops its replica and resyncs, and writes land again.
    const fresh = await client(room, room.tokens.annotator);
    addAnnotation(fresh.doc, note('after-resync'));
    await waitFor(() => readAnnotations(owner.doc).some((a) => a.id === 'after-resync'), 'the write after the resync');
    expect(fresh.refused).toEqual([]);
  });

  it('names the viewer role and a key the role may never write', async () => {
    const room = await createRoom(s);
    const viewer = await client(room, room.tokens.viewer);
    addAnnotation(viewer.doc, note('from-viewer'));
    const annotator = await client(room, room.tokens.annotator);
    annotator.doc.getMap(RoomKey.settings).set(SettingKey.allowAnnotatorCapture, true);
    await waitFor(() => viewer.refused.length === 1 && annotator.refused.length === 1, 'both refusals');
    expect(viewer.refused).toEqual(['viewer']);
    expect(annotator.refused).toEqual(['forbidden-key']);
  });

  it('never sends it to a socket without ?ack=1', async () => {
    const room = await createRoom(s);
    const raw = rawSocket(s, room.id, `token=${room.tokens.viewer}`);
    await raw.opened();
    const d = new Y.Doc();
    addAnnotation(d, note('stock-viewer'));
    raw.ws.send(encodeSyncMessage(2, Y.encodeStateAsUpdate(d)));
    // Frames are handled in order: the answer to this step 1 comes after anything about the update.
    raw.ws.send(encodeSyncMessage(0, Y.encodeStateVector(new Y.Doc())));
    const step2 = () => raw.received.some((f) => f[0] === MessageType.sync && f[1] === 1);
    await waitFor(step2, 'the answer to step 1');
    expect(raw.received.map(messageType).filter((t) => t !== MessageType.sync && t !== MessageType.awareness)).toEqual([]);
    raw.ws.close();
    await raw.closed;
  });
});
