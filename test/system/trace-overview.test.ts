import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWindowColumns, type TraceSummary, type WindowColumns } from '@seam/shared/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERVIEW_EVENTS } from '../../server/src/trace/stored-form';
import { addDocument, createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers/server';

/** One generated event: µs with three decimals, so JSON and the stored doubles agree exactly. */
interface Ev { tid: number; ts: number; dur: number; name: string; op?: string }

/**
 * A Chrome JSON trace of three threads: one of 6,000 events of varied length back to back (past
 * the overview's limit), one of 40 (under it), one of 3,000 nested in pairs; seeded.
 */
function generate(): Ev[] {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const out: Ev[] = [];
  let t = 1000;
  for (let i = 0; i < 6000; i++) {
    const dur = r3(0.5 + 40 * rnd() ** 3);
    out.push({ tid: 1, ts: r3(t), dur, name: `fusion.${i % 13}`, op: `fusion.${i % 13}` });
    t += dur + r3(2 * rnd());
  }
  for (let i = 0; i < 40; i++) out.push({ tid: 2, ts: 1000 + i * 500, dur: 100, name: 'host step' });
  for (let i = 0; i < 1500; i++) {
    const ts = r3(1000 + i * 13.5);
    out.push({ tid: 3, ts, dur: 12, name: 'outer' }, { tid: 3, ts: r3(ts + 1), dur: r3(2 + 8 * rnd()), name: 'inner' });
  }
  return out;
}

const events = generate();
const trace = JSON.stringify({
  traceEvents: events.map((e) => ({ ph: 'X', pid: 1, tid: e.tid, ts: e.ts, dur: e.dur, name: e.name, ...(e.op ? { args: { hlo_op: e.op, hlo_module: 'jit_f' } } : {}) })),
});

let dataDir: string;
let server: TestServer;
let room: CreatedRoom;
let other: CreatedRoom;
let docId: string;
let dumpId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'seam-overview-'));
  server = await startTestServer({ dataDir });
  room = await createRoom(server, 'overview');
  other = await createRoom(server, 'another room');
  const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=gen.trace.json`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body: trace,
  });
  expect(res.status).toBe(201);
  docId = ((await res.json()) as { id: string }).id;
  dumpId = await addDocument(server, room.id, room.tokens.owner, 'a.hlo', 'HloModule m\n');
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (path: string, token: string | null = room.tokens.viewer, headers: Record<string, string> = {}, r: CreatedRoom = room) =>
  fetch(`${server.url}/api/rooms/${r.id}/documents/${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
const columns = async (res: Response): Promise<WindowColumns> => decodeWindowColumns(new Uint8Array(await res.arrayBuffer()));
/** Events of decoded columns, per track id: [start, dur, name, op]. */
const listOf = (w: WindowColumns) => new Map(w.tracks.map((t) => [t.track, [...t.start].map((s, i) => [s, t.dur[i], w.strings[t.name[i]!], t.op[i]! >= 0 ? w.strings[t.op[i]!] : null])]));

describe('the trace overview', () => {
  let summary: TraceSummary;
  let overview: WindowColumns;

  it('serves the whole trace in columns, every track, privately cached', async () => {
    summary = (await (await get(`${docId}/trace/summary`)).json()) as TraceSummary;
    const res = await get(`${docId}/trace/overview`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    overview = await columns(res);
    expect([overview.fromUs, overview.toUs]).toEqual([summary.startUs, summary.endUs]);
    expect(overview.tracks.map((t) => [t.track, t.total])).toEqual(summary.tracks.map((t) => [t.id, t.events]));
    expect(overview.tracks.map((t) => t.downsampled)).toEqual(summary.tracks.map((t) => t.events > OVERVIEW_EVENTS));
    expect((await get(`${docId}/trace/overview`, room.tokens.viewer, { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });

  it('keeps a short track whole, and of a long one the longest event starting in each equal time bucket', () => {
    const byTid = new Map(summary.tracks.map((t) => [t.id, events.filter((e) => t.name === `tid ${e.tid}`)]));
    const got = listOf(overview);
    const width = (summary.endUs - summary.startUs) / OVERVIEW_EVENTS;
    for (const t of summary.tracks) {
      const mine = [...(byTid.get(t.id) ?? [])];
      expect(mine.length, `track ${t.name}`).toBe(t.events);
      mine.sort((a, b) => a.ts - b.ts);
      let want = mine;
      if (mine.length > OVERVIEW_EVENTS) {
        const best = new Map<number, Ev>();
        for (const e of mine) {
          const k = Math.min(OVERVIEW_EVENTS - 1, Math.floor((e.ts - summary.startUs) / width));
          const cur = best.get(k);
          if (!cur || e.dur > cur.dur) best.set(k, e);
        }
        want = [...best.keys()].sort((a, b) => a - b).map((k) => best.get(k)!);
      }
      expect(got.get(t.id), `track ${t.name}`).toEqual(want.map((e) => [e.ts, e.dur, e.name, e.op ?? null]));
    }
  });

  it('is stored once computed: the same bytes after a restart, from its row', async () => {
    const before = new Uint8Array(await (await get(`${docId}/trace/overview`)).arrayBuffer());
    await server.close();
    const db = new Database(join(dataDir, 'seam.db'), { readonly: true });
    const rows = db.prepare('SELECT COUNT(*) AS n FROM trace_overviews').get() as { n: number };
    db.close();
    expect(rows.n).toBe(1);
    server = await startTestServer({ dataDir });
    const after = new Uint8Array(await (await get(`${docId}/trace/overview`)).arrayBuffer());
    expect(Buffer.from(after).equals(Buffer.from(before))).toBe(true);
  });

  it('answers a window of events in columns with the events of the JSON window', async () => {
    const from = summary.startUs + 2000;
    const to = summary.startUs + 9000;
    const q = `from=${from}&to=${to}&limit=500`;
    const json = (await (await get(`${docId}/trace/events?${q}`)).json()) as { windows: { track: number; total: number; downsampled: boolean; events: { startUs: number; durUs: number; name: string; op?: string }[] }[] };
    const res = await get(`${docId}/trace/events?${q}&format=columns`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const w = await columns(res);
    expect([w.fromUs, w.toUs]).toEqual([from, to]);
    expect(w.tracks.map((t) => [t.track, t.total, t.downsampled])).toEqual(json.windows.map((x) => [x.track, x.total, x.downsampled]));
    expect(json.windows.some((x) => x.downsampled)).toBe(true);
    const got = listOf(w);
    for (const x of json.windows) expect(got.get(x.track)).toEqual(x.events.map((e) => [e.startUs, e.durUs, e.name, e.op ?? null]));
    const one = await columns(await get(`${docId}/trace/events?${q}&track=${json.windows[0]!.track}&format=columns`));
    expect(one.tracks.map((t) => t.track)).toEqual([json.windows[0]!.track]);
  });

  it('serves an empty overview for a trace with no events', async () => {
    const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=empty.trace.json`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body: JSON.stringify({ traceEvents: [{ ph: 'C', pid: 1, ts: 1, name: 'mem', args: { bytes: 1 } }] }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    const empty = await columns(await get(`${id}/trace/overview`));
    expect(empty.tracks.every((t) => t.start.length === 0)).toBe(true);
    expect(empty.strings).toEqual([]);
  });

  it('refuses a format it does not know and bad windows by name, and changes nothing', async () => {
    for (const bad of ['format=xml', 'format=', 'format=columns&limit=0', 'format=columns&from=abc', 'format=columns&track=-1', 'format=columns&from=9&to=1', 'format=columns&limit=1e9']) {
      const res = await get(`${docId}/trace/events?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code, bad).toBe('bad_request');
    }
    expect(new Uint8Array(await (await get(`${docId}/trace/overview`)).arrayBuffer())).toEqual(new Uint8Array(await (await get(`${docId}/trace/overview`)).arrayBuffer()));
  });

  it('refuses strangers, tokens of another room, another room’s documents, and documents that are not traces', async () => {
    expect((await get(`${docId}/trace/overview`, null)).status).toBe(401);
    expect((await get(`${docId}/trace/overview`, 'not-a-token')).status).toBe(401);
    expect((await get(`${docId}/trace/overview`, other.tokens.owner)).status).toBe(401);
    expect((await get(`${docId}/trace/overview`, other.tokens.owner, {}, other)).status).toBe(404);
    expect((await get(`${dumpId}/trace/overview`)).status).toBe(404);
    expect((await get(`nope/trace/overview`)).status).toBe(404);
    expect((await get(`${docId}/trace/events?format=columns`, null)).status).toBe(401);
  });
});
