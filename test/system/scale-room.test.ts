import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as Y from 'yjs';
import {
  addAnnotation, annotationsMap, annotationToVersion1YMap, isVersion1Annotation, readAnnotations, RoomKey, roomVersion,
} from '@seam/shared/model';
import { runCli } from '../../server/src/cli/run';
import { CloseCode } from '@seam/shared/protocol';
import { connectClient, createRoom, note, startTestServer, waitFor, type CreatedRoom, type TestClient } from '../helpers';
import { useScaledCluster } from '../helpers/scale/scaled-cluster';

/**
 * Scaled mode's room path: three Seam instances on one PostgreSQL and one Redis, behind HAProxy.
 * Compaction is set low (every 40 updates) so that it runs on several instances during the
 * streams below, and rooms unload a second after their last socket, so that later loads read
 * the log (and the snapshots) back.
 */
const COMPACT_COUNT = 40;



const scaled = useScaledCluster(3, 'seam_room', { SEAM_COMPACT_COUNT: String(COMPACT_COUNT), SEAM_IDLE_UNLOAD_S: '1' });

/** Instance `i`'s own address (for clients that must be on a given instance). */
const { direct } = scaled;

/** The ids of the annotations of `c`'s replica. */
const idsOf = (c: TestClient) => new Set(readAnnotations(c.doc).map((a) => a.id));

/** The ids `writer` wrote (`written`, with the clock after each) that its acks cover. */
function ackedIds(writer: TestClient, written: readonly { id: string; clock: number }[]): string[] {
  let durable = 0;
  for (const ack of writer.acks) for (const e of ack.entries) if (e.clientID === writer.doc.clientID) durable = Math.max(durable, e.clock);
  return written.filter((w) => w.clock <= durable).map((w) => w.id);
}

/**
 * A stock client that, once synced, writes an annotation every `everyMs` and remembers each with
 * its clock. (The stock provider sends an edit made before its socket is open only in its sync
 * step 2, and edits made after the socket opens but before the server's step 1 arrives ahead of
 * it, which the server refuses as a gap: the writers start once synced, as in the crash test.)
 */
async function streamingWriter(server: { url: string }, room: CreatedRoom, prefix: string, everyMs = 5) {
  const client = connectClient(server, room.id, room.tokens.annotator, { ack: true });
  const written: { id: string; clock: number }[] = [];
  const write = () => {
    const id = `${prefix}-${written.length}`;
    addAnnotation(client.doc, note(id));
    written.push({ id, clock: Y.getState(client.doc.store, client.doc.clientID) });
  };
  await client.synced();
  const timer = setInterval(write, everyMs);
  return { client, written, write, stop: () => clearInterval(timer), acked: () => ackedIds(client, written) };
}

/** Posts replies to annotation `aid` over REST through HAProxy until `running()` is false; returns the ids answered 201. */
async function restWriter(room: CreatedRoom, aid: string, running: () => boolean, statuses: number[] = []): Promise<string[]> {
  const confirmed: string[] = [];
  for (let i = 0; running(); i++) {
    try {
      const res = await fetch(`${scaled.cluster.url}/api/rooms/${room.id}/annotations/${aid}/replies`, {
        method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ body: `reply ${i}` }),
      });
      statuses.push(res.status);
      if (res.status === 201) confirmed.push(((await res.json()) as { id: string }).id);
      else await res.body?.cancel();
    } catch {
      // The proxy dropped the connection of a killed instance: try again.
    }
  }
  return confirmed;
}

/** Everything stored for `room`, read by a fresh client through HAProxy: annotation ids and reply ids. */
async function stored(room: CreatedRoom): Promise<{ annotations: Set<string>; replies: Set<string> }> {
  const c = connectClient({ url: scaled.cluster.url }, room.id, room.tokens.viewer);
  await c.synced();
  const list = readAnnotations(c.doc);
  c.destroy();
  return { annotations: new Set(list.map((a) => a.id)), replies: new Set(list.flatMap((a) => a.replies.map((r) => r.id))) };
}

/** A room with one annotation (the REST writer's replies go under it), made through HAProxy. */
async function roomWithBase(title: string): Promise<CreatedRoom> {
  const room = await createRoom({ url: scaled.cluster.url }, title);
  const c = connectClient({ url: scaled.cluster.url }, room.id, room.tokens.owner, { ack: true });
  await c.synced();
  addAnnotation(c.doc, note('base'));
  const clock = Y.getState(c.doc.store, c.doc.clientID);
  await waitFor(() => c.acks.some((a) => a.entries.some((e) => e.clientID === c.doc.clientID && e.clock >= clock)), 'the base annotation to be stored');
  c.destroy();
  return room;
}

describe('scaled mode: one room on three instances', () => {
  it('converges stock clients of one room on different instances (annotations, notes and presence)', async () => {
    const room = await createRoom(direct(0), 'converge');
    const clients = [0, 1, 2].map((i) => connectClient(direct(i), room.id, room.tokens.annotator));
    await Promise.all(clients.map((c) => c.synced()));
    clients.forEach((c, i) => {
      addAnnotation(c.doc, note(`from-${i}`));
      c.doc.getText(RoomKey.notes).insert(0, `line ${i}\n`);
    });
    clients[0]!.provider.awareness.setLocalStateField('user', { name: 'On instance 0' });
    await waitFor(() => clients.every((c) => idsOf(c).size === 3), 'every annotation on every instance\'s clients');
    const notes = () => clients.map((c) => c.doc.getText(RoomKey.notes).toString());
    await waitFor(() => new Set(notes()).size === 1 && notes()[0]!.split('\n').length === 4, 'one notes text everywhere');
    await waitFor(() => clients.slice(1).every((c) => [...c.provider.awareness.getStates().values()].some((s) => (s as { user?: { name?: string } }).user?.name === 'On instance 0')), 'presence across instances');
    expect([...idsOf(clients[2]!)].sort()).toEqual(['from-0', 'from-1', 'from-2']);
    // Another instance's REST answer holds what clients of the others wrote: one room directory, one log.
    const res = await fetch(`${direct(2).url}/api/rooms/${room.id}/annotations?token=${room.tokens.viewer}`);
    expect(((await res.json()) as { annotations: { id: string }[] }).annotations.map((a) => a.id).sort()).toEqual(['from-0', 'from-1', 'from-2']);
    for (const c of clients) c.destroy();
  });

  it('serves an embedded room of room-document version 1 moved in by seam migrate, migrated once on its first load', async () => {
    // An embedded server whose room holds version-1 annotations, written by an old client and stored.
    const dataDir = mkdtempSync(join(tmpdir(), 'seam-scaled-migrate-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const embedded = await startTestServer({ dataDir });
    const room = await createRoom(embedded, 'an old room');
    const old = connectClient(embedded, room.id, room.tokens.annotator, { ack: true });
    await old.synced();
    old.doc.transact(() => {
      for (let i = 0; i < 5; i += 1) annotationsMap(old.doc).set(`v1-${i}`, annotationToVersion1YMap(note(`v1-${i}`)));
    });
    await waitFor(() => old.acks.at(-1)?.entries.find((e) => e.clientID === old.doc.clientID)?.clock === Y.getState(old.doc.store, old.doc.clientID), 'the old writes acknowledged');
    const before = readAnnotations(old.doc);
    old.destroy();
    await embedded.close();

    // Moved into the cluster's PostgreSQL, then opened through two instances at once.
    const lines: string[] = [];
    expect(await runCli(['migrate', dataDir, scaled.databaseUrl], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(0);
    const clients = [1, 2].map((i) => connectClient(direct(i), room.id, room.tokens.viewer));
    await Promise.all(clients.map((c) => c.synced()));
    await waitFor(() => clients.every((c) => roomVersion(c.doc) === 2), 'the room migrated on load');
    for (const c of clients) {
      expect(readAnnotations(c.doc)).toEqual(before);
      expect([...annotationsMap(c.doc).values()].filter((m) => isVersion1Annotation(m))).toEqual([]);
    }
    for (const c of clients) c.destroy();
    // A third instance loading it later finds it migrated and the same.
    const later = connectClient(direct(0), room.id, room.tokens.viewer);
    await later.synced();
    expect(roomVersion(later.doc)).toBe(2);
    expect(readAnnotations(later.doc)).toEqual(before);
    later.destroy();
  });

  it('compacts while two instances write one room and loses no row of either', async () => {
    const room = await createRoom(direct(0), 'compaction');
    const writers = await Promise.all([streamingWriter(direct(0), room, 'w0', 3), streamingWriter(direct(1), room, 'w1', 3)]);
    const db = new pg.Client({ connectionString: scaled.databaseUrl });
    await db.connect();
    const throughId = async () => Number((await db.query<{ through_id: string }>('SELECT through_id FROM room_snapshots WHERE room_id = $1', [room.id])).rows[0]?.through_id ?? 0);
    // Past four times the threshold a room compacts at once, whichever instance counts it first.
    await waitFor(async () => (await throughId()) >= COMPACT_COUNT * 4, 'a compaction while both write', 60_000);
    for (const w of writers) w.stop();
    await waitFor(() => writers.every((w) => w.acked().length === w.written.length), 'every write acknowledged');
    await db.end();
    for (const w of writers) w.client.destroy();
    // Instance 2 never held the room: it loads the snapshot and the rows after it.
    const reader = connectClient(direct(2), room.id, room.tokens.viewer);
    await reader.synced();
    const ids = idsOf(reader);
    const written = writers.flatMap((w) => w.written.map((x) => x.id));
    expect(written.length).toBeGreaterThan(COMPACT_COUNT * 4);
    expect(written.filter((id) => !ids.has(id))).toEqual([]);
    reader.destroy();
  });

  it('loses nothing acknowledged across five kill -9 of an instance under load, and its clients resync through HAProxy', async () => {
    const room = await roomWithBase('failover');
    const mustSurvive = { annotations: new Set<string>(), replies: new Set<string>() };
    for (let round = 0; round < 5; round++) {
      const writers = await Promise.all([0, 1, 2].map((w) => streamingWriter({ url: scaled.cluster.url }, room, `r${round}-w${w}`)));
      let running = true;
      const rest = restWriter(room, 'base', () => running);
      await waitFor(() => writers.every((w) => w.acked().length >= 5), 'acknowledged writes on every client', 60_000);
      const victim = round % 3;
      await scaled.cluster.instances[victim]!.kill();
      running = false;
      for (const w of writers) w.stop();
      try {
        for (const id of await rest) mustSurvive.replies.add(id);
        // Those on the dead instance reconnect through HAProxy; their sync step 2 carries what was not acknowledged.
        await waitFor(() => writers.every((w) => w.client.provider.wsconnected && w.client.provider.synced), 'every writer connected again', 30_000);
        for (const w of writers) for (let i = 0; i < 3; i++) w.write();
        await waitFor(() => writers.every((w) => w.acked().length === w.written.length), 'every write acknowledged', 30_000);
        for (const w of writers) for (const id of w.acked()) mustSurvive.annotations.add(id);
        // Each writer's replica has what the others wrote: resynced, not just reconnected.
        const all = writers.flatMap((w) => w.written.map((x) => x.id));
        await waitFor(() => writers.every((w) => all.every((id) => idsOf(w.client).has(id))), 'writers converged after the kill', 30_000);
        for (const w of writers) w.client.destroy();
      } finally {
        await scaled.cluster.instances[victim]!.start();
      }
    }
    const got = await stored(room);
    expect([...mustSurvive.annotations].filter((id) => !got.annotations.has(id))).toEqual([]);
    expect([...mustSurvive.replies].filter((id) => !got.replies.has(id))).toEqual([]);
    expect(mustSurvive.replies.size).toBeGreaterThan(0);
  });

  it('converges with nothing durable lost when Redis restarts mid-stream', async () => {
    const room = await createRoom(direct(0), 'redis restart');
    const writers = await Promise.all([streamingWriter(direct(0), room, 'a'), streamingWriter(direct(1), room, 'b')]);
    await waitFor(() => writers.every((w) => w.acked().length >= 5), 'writes before the restart');
    await scaled.redis.kill();
    await waitFor(() => writers.every((w) => w.acked().length >= 20), 'writes while Redis is down');
    await scaled.redis.start();
    await waitFor(() => writers.every((w) => w.acked().length >= 40), 'writes after Redis is back');
    for (const w of writers) w.stop();
    await waitFor(() => writers.every((w) => w.acked().length === w.written.length), 'every write acknowledged');
    const all = writers.flatMap((w) => w.written.map((x) => x.id));
    // What crossed no bus while Redis was down reaches the other instance by its resync from the log.
    await waitFor(() => writers.every((w) => all.every((id) => idsOf(w.client).has(id))), 'both replicas hold every write', 30_000);
    for (const w of writers) w.client.destroy();
    const got = await stored(room);
    expect(all.filter((id) => !got.annotations.has(id))).toEqual([]);
  });

  it('fails writes with the named error while PostgreSQL is stopped, acknowledges none, and serves the room again once it is back', async () => {
    const room = await roomWithBase('postgres stopped');
    const writer = await streamingWriter(direct(0), room, 'pg', 20);
    await waitFor(() => writer.acked().length >= 3, 'writes before the stop');
    await scaled.postgres.stop();
    await waitFor(() => writer.client.closes.includes(CloseCode.serverError), 'the socket closed with 4500');
    writer.stop();
    const res = await fetch(`${scaled.cluster.url}/api/rooms/${room.id}/annotations/base/replies`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'while down' }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
    const health = (await (await fetch(`${direct(1).url}/healthz`)).json()) as { postgres: string; redis: string };
    expect(health).toMatchObject({ ok: false, postgres: 'down', redis: 'up' });
    const ackedWhileDown = writer.acked();
    writer.client.destroy();
    await scaled.postgres.start();
    const got = await stored(room);
    // Nothing was acknowledged that is not stored; what was refused was never acknowledged.
    expect(ackedWhileDown.filter((id) => !got.annotations.has(id))).toEqual([]);
    const again = await streamingWriter({ url: scaled.cluster.url }, room, 'back', 20);
    await waitFor(() => again.acked().length >= 3, 'writes once PostgreSQL is back', 30_000);
    again.stop();
    const ok = await fetch(`${scaled.cluster.url}/api/rooms/${room.id}/annotations/base/replies`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'back' }),
    });
    expect(ok.status).toBe(201);
    again.client.destroy();
  });
});
