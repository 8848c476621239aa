import * as Y from 'yjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addAnnotation, readAnnotations, type Annotation } from '@seam/shared/model';
import { connectClient, createRoom, startTestServer, waitFor, type CreatedRoom, type TestClient, type TestServer } from '../helpers';

const ROUNDS = 5;
const WRITERS = 3;
const dataDir = mkdtempSync(join(tmpdir(), 'seam-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Deterministic extra delays before each kill (ms), varied per round so kills land at different points of a commit. */
const killAfter = (round: number) => (round * 7919) % 400;

const note = (id: string, docId: string): Annotation => ({
  id, docId, from: 0, to: 9, quote: { prefix: '', exact: 'HloModule', suffix: '' }, kind: 'note', body: `body of ${id}`,
  author: { id: 'crash', name: 'Crash', color: '#ff0000' }, createdAt: Date.now(), resolved: false, replies: [],
});

/** One round of load: writers stream annotations over sockets, a poster over REST, an observer watches. */
async function streamUntilKilled(server: TestServer, room: CreatedRoom, docId: string, round: number) {
  const confirmed = new Set<string>();
  const writers: TestClient[] = [];
  for (let w = 0; w < WRITERS; w++) writers.push(connectClient(server, room.id, room.tokens.annotator, { ack: true }));
  const observer = connectClient(server, room.id, room.tokens.viewer);
  await Promise.all([...writers, observer].map((c) => c.synced()));
  const written: { id: string; client: number; clock: number }[][] = writers.map(() => []);
  let running = true;
  const timers = writers.map((c, w) => setInterval(() => {
    if (!running) return;
    const id = `r${round}-w${w}-${written[w]!.length}`;
    addAnnotation(c.doc, note(id, docId));
    written[w]!.push({ id, client: c.doc.clientID, clock: Y.getState(c.doc.store, c.doc.clientID) });
  }, 4));
  const poster = (async () => {
    for (let i = 0; running; i++) {
      try {
        const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, {
          method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
          body: JSON.stringify({ docId, from: 0, to: 9, kind: 'question', body: `rest ${round}/${i}` }),
        });
        if (res.status === 201) confirmed.add(((await res.json()) as Annotation).id);
      } catch {
        return;
      }
    }
  })();
  const ackedWrites = () => {
    const ids: string[] = [];
    writers.forEach((c, w) => {
      const durable = new Map<number, number>();
      for (const ack of c.acks) for (const e of ack.entries) durable.set(e.clientID, Math.max(durable.get(e.clientID) ?? 0, e.clock));
      for (const x of written[w]!) if ((durable.get(x.client) ?? 0) >= x.clock) ids.push(x.id);
    });
    return ids;
  };
  // Kill under real load: once writes have been acknowledged over both paths, at a varied moment.
  await waitFor(() => ackedWrites().length >= 10 && confirmed.size >= 3, 'load to build up', 60_000);
  await new Promise((r) => setTimeout(r, killAfter(round)));
  await server.kill!('SIGKILL');
  running = false;
  for (const t of timers) clearInterval(t);
  await poster;
  for (const id of ackedWrites()) confirmed.add(id);
  const relayed = readAnnotations(observer.doc).map((a) => a.id);
  for (const c of [...writers, observer]) c.destroy();
  return { confirmed, relayed, written: written.flat().length };
}

describe('crash safety', () => {
  it(`keeps every acknowledged or relayed update across ${ROUNDS} SIGKILLs under load`, async () => {
    const mustSurvive = new Set<string>();
    let room: CreatedRoom | undefined;
    let docId = '';
    let acked = 0;
    let relayedTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startTestServer({ dataDir, child: true });
      if (!room) {
        room = await createRoom(server, 'crash room');
        const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=dump`, {
          method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'text/plain' }, body: 'HloModule crash\n',
        });
        expect(res.status).toBe(201);
        docId = ((await res.json()) as { id: string }).id;
      }
      const check = connectClient(server, room.id, room.tokens.viewer);
      await check.synced();
      const present = new Set(readAnnotations(check.doc).map((a) => a.id));
      check.destroy();
      const missing = [...mustSurvive].filter((id) => !present.has(id));
      expect(missing, `lost after restart ${round}`).toEqual([]);
      const { confirmed, relayed } = await streamUntilKilled(server, room, docId, round);
      for (const id of confirmed) mustSurvive.add(id);
      for (const id of relayed) mustSurvive.add(id);
      acked += confirmed.size;
      relayedTotal += relayed.length;
    }
    const last = await startTestServer({ dataDir, child: true });
    const res = await fetch(`${last.url}/api/rooms/${room!.id}/annotations?token=${room!.tokens.viewer}`);
    const listed = new Set(((await res.json()) as { annotations: Annotation[] }).annotations.map((a) => a.id));
    await last.close();
    expect([...mustSurvive].filter((id) => !listed.has(id))).toEqual([]);
    console.log(`crash test: ${acked} acknowledged, ${relayedTotal} relayed, ${mustSurvive.size} distinct checked`);
  });
});
