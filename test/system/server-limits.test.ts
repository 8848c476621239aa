import * as Y from 'yjs';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations } from '@seam/shared/model';
import { CloseCode, MessageType } from '@seam/shared/protocol';
import { connectClient, createRoom, note, rawSocket, startTestServer, waitFor, type CreatedRoom, type TestClient, type TestServer } from '../helpers';
import { startTarget, TargetKind, type SyncTarget } from '../helpers/scale/target';

function frame(type: number, ...parts: (number | Uint8Array)[]): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, type);
  for (const p of parts) {
    if (typeof p === 'number') encoding.writeVarUint(e, p);
    else encoding.writeVarUint8Array(e, p);
  }
  return encoding.toUint8Array(e);
}

/** Deterministic pseudo-random bytes (xorshift), so a failure can be replayed. */
function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function validUpdate(): Uint8Array {
  const d = new Y.Doc();
  addAnnotation(d, note('valid', 'x'.repeat(50)));
  return Y.encodeStateAsUpdate(d);
}

const update = validUpdate();
const MALFORMED: [string, Uint8Array | string][] = [
  ['a varint longer than 53 bits', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])],
  ['a varint cut off mid-number', new Uint8Array([0x80])],
  ['a sync update whose length prefix runs past the frame', frame(MessageType.sync, 2, update).subarray(0, 20)],
  ['a sync update whose Yjs content is truncated', frame(MessageType.sync, 2, update.subarray(0, update.length - 7))],
  ['an unknown message type', frame(42, 0)],
  ['an unknown sync message', frame(MessageType.sync, 9, new Uint8Array([0, 0]))],
  ['trailing bytes after a message', new Uint8Array([...frame(MessageType.sync, 2, new Uint8Array([0, 0])), 7])],
  ['a sync step 1 whose state vector is cut off', frame(MessageType.sync, 0, new Uint8Array([3, 0x80]))],
  ['a query-awareness message with a body', frame(MessageType.queryAwareness, 5)],
  ['awareness that is not JSON', frame(MessageType.awareness, frame(1, 99, 1, new TextEncoder().encode('{not json')))],
  ['random bytes in a sync update', new Uint8Array([0, 2, ...randomBytes(300, 0x9e3779b9)])],
  ['random bytes', randomBytes(512, 12345)],
  ['a text frame', 'hello'],
];

/** The rooms a target of the suite below may hold: the malformed-frame cases create two. */
const MAX_ROOMS = 4;

/**
 * On both targets: in scaled mode the hostile socket and the reader are on instance 1 and the
 * writer on instance 0, so a malformed frame closes its own socket only, and the room keeps
 * syncing across instances through the instance that refused it; and `SEAM_MAX_ROOMS` counts the
 * rooms of every instance. One target per kind for the file, so the room bound is checked last.
 */
describe.each(Object.values(TargetKind))('malformed frames and the room bound (%s)', (kind) => {
  let t: SyncTarget;
  let room: CreatedRoom;
  let writer: TestClient;
  let reader: TestClient;
  beforeAll(async () => {
    t = await startTarget(kind, { SEAM_MAX_ROOMS: String(MAX_ROOMS) });
    room = await createRoom(t);
    writer = connectClient(t.at(0), room.id, room.tokens.annotator);
    reader = connectClient(t.at(1), room.id, room.tokens.viewer);
    await Promise.all([writer.synced(), reader.synced()]);
  });
  afterAll(async () => {
    writer?.destroy();
    reader?.destroy();
    await t?.close();
  });

  it.each(MALFORMED)('closes only the socket that sent %s', async (what, bytes) => {
    const raw = rawSocket(t.at(1), room.id, `token=${room.tokens.annotator}`);
    await raw.opened();
    raw.ws.send(bytes);
    expect((await raw.closed).code).toBe(CloseCode.malformedMessage);
    addAnnotation(writer.doc, note(`after ${what}`));
    await waitFor(() => readAnnotations(reader.doc).some((a) => a.id === `after ${what}`), 'the room to keep syncing');
    expect(writer.closes).toEqual([]);
  });

  it('closes a 64 MiB frame with 1009 and keeps serving', async () => {
    const raw = rawSocket(t.at(1), room.id, `token=${room.tokens.annotator}`);
    await raw.opened();
    raw.ws.send(new Uint8Array(64 * 1024 * 1024));
    expect((await raw.closed).code).toBe(CloseCode.messageTooBig);
    addAnnotation(writer.doc, note('after the big frame'));
    await waitFor(() => readAnnotations(reader.doc).some((a) => a.id === 'after the big frame'), 'the room to keep syncing');
    const other = await createRoom(t);
    const c = connectClient(t.at(1), other.id, other.tokens.owner);
    await c.synced();
    c.destroy();
  });

  it('refuses a room past SEAM_MAX_ROOMS counting the rooms created through every instance', async () => {
    const create = (at: { url: string }) => fetch(`${at.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'one more' }) });
    let created = 0;
    for (;;) {
      const res = await create(t.at(0));
      if (res.status !== 201) {
        expect(res.status).toBe(409);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
        break;
      }
      created += 1;
      expect(created).toBeLessThanOrEqual(MAX_ROOMS);
    }
    expect(created).toBeGreaterThan(0);
    const elsewhere = await create(t.at(1));
    expect(elsewhere.status).toBe(409);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
  });
});

describe('configured limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      env: {
        SEAM_UPDATES_PER_S: '5', SEAM_UPDATE_BURST: '10', SEAM_CONNECTIONS_PER_ROOM: '2', SEAM_ROOM_BYTES: '4096',
        SEAM_REQUEST_BYTES: '2048', SEAM_DOCUMENT_BYTES: '4096', SEAM_MAX_FRAME_BYTES: '65536',
      },
    });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('closes a socket that floods updates as rate-limited', async () => {
    const r = await createRoom(limited);
    const raw = rawSocket(limited, r.id, `token=${r.tokens.annotator}`);
    await raw.opened();
    for (let i = 0; i < 50; i++) raw.ws.send(frame(MessageType.sync, 2, new Uint8Array([0, 0])));
    expect((await raw.closed).code).toBe(CloseCode.rateLimited);
  });

  it('refuses a connection beyond the per-room limit as room-full', async () => {
    const r = await createRoom(limited);
    const a = connectClient(limited, r.id, r.tokens.viewer);
    const b = connectClient(limited, r.id, r.tokens.viewer);
    await Promise.all([a.synced(), b.synced()]);
    const third = rawSocket(limited, r.id, `token=${r.tokens.viewer}`);
    expect((await third.closed).code).toBe(CloseCode.roomFull);
    expect(third.received).toEqual([]);
    a.destroy();
    b.destroy();
  });

  it('closes a socket whose update would grow the room past its size limit, storing nothing of it', async () => {
    const r = await createRoom(limited);
    const c = connectClient(limited, r.id, r.tokens.annotator);
    await c.synced();
    addAnnotation(c.doc, note('huge', 'x'.repeat(8000)));
    await waitFor(() => c.closes.includes(CloseCode.roomTooLarge), 'the room-too-large close');
    c.destroy();
    const v = connectClient(limited, r.id, r.tokens.viewer);
    await v.synced();
    expect(readAnnotations(v.doc)).toEqual([]);
    v.destroy();
  });

  it('closes frames over the configured frame size with 1009', async () => {
    const r = await createRoom(limited);
    const raw = rawSocket(limited, r.id, `token=${r.tokens.annotator}`);
    await raw.opened();
    raw.ws.send(new Uint8Array(70_000));
    expect((await raw.closed).code).toBe(CloseCode.messageTooBig);
  });

  it('answers 413 for request bodies over the limit, also when streamed without a length', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(4000) });
    const res = await fetch(`${limited.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('too_large');
    const r = await createRoom(limited);
    const chunks = [new Uint8Array(3000).fill(65), new Uint8Array(3000).fill(66)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const doc = await fetch(`${limited.url}/api/rooms/${r.id}/documents?title=big`, {
      method: 'POST', headers: { authorization: `Bearer ${r.tokens.owner}`, 'content-type': 'text/plain' }, body: stream, duplex: 'half',
    } as RequestInit);
    expect(doc.status).toBe(413);
    const listed = await fetch(`${limited.url}/api/rooms/${r.id}?token=${r.tokens.owner}`);
    expect(((await listed.json()) as { documents: unknown[] }).documents).toEqual([]);
  });
});

describe('dead sockets', () => {
  it('drops a socket that stops answering pings, and keeps one that answers', async () => {
    const s2 = await startTestServer({ env: { SEAM_PING_S: '1' } });
    try {
      const r = await createRoom(s2);
      const silent = rawSocket(s2, r.id, `token=${r.tokens.viewer}`, { autoPong: false });
      const polite = connectClient(s2, r.id, r.tokens.viewer);
      await Promise.all([silent.opened(), polite.synced()]);
      expect((await silent.closed).code).toBe(1006);
      expect(polite.closes).toEqual([]);
      polite.destroy();
    } finally {
      await s2.close();
    }
  });
});
