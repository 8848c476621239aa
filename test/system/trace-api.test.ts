import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { OpAggregate, TraceSummary } from '@seam/shared/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers/server';

const dir = new URL('../fixtures/trace/', import.meta.url);
const jsonGz = readFileSync(new URL('mlp.trace.json.gz', dir));
const json = gunzipSync(jsonGz);
const xplane = readFileSync(new URL('mlp.xplane.pb', dir));
const python = JSON.parse(readFileSync(new URL('mlp.op_table.json', dir), 'utf8')) as { ops: { name: string; module: string; count: number; totalUs: number }[] };

interface Uploaded { id: string; kind: string; bytes: number; sha256: string }
interface Windows { fromUs: number; toUs: number; windows: { track: number; total: number; downsampled: boolean; events: { startUs: number; durUs: number; name: string; op?: string; module?: string }[] }[] }

let server: TestServer;
let small: TestServer;
let room: CreatedRoom;
let other: CreatedRoom;

beforeAll(async () => {
  server = await startTestServer();
  small = await startTestServer({ env: { SEAM_TRACE_BYTES: '4096' } });
  room = await createRoom(server, 'traces');
  other = await createRoom(server, 'another room');
});
afterAll(async () => {
  await server?.close();
  await small?.close();
});

const upload = (s: TestServer, r: CreatedRoom, title: string, body: Uint8Array | string, type: string, token = r.tokens.annotator) =>
  fetch(`${s.url}/api/rooms/${r.id}/documents?title=${encodeURIComponent(title)}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
const get = (path: string, token: string | null = room.tokens.viewer, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/rooms/${room.id}/documents/${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
const documentsOf = async (s: TestServer, r: CreatedRoom) =>
  ((await (await fetch(`${s.url}/api/rooms/${r.id}`, { headers: { authorization: `Bearer ${r.tokens.viewer}` } })).json()) as { documents: { id: string }[] }).documents;

describe('trace upload and reading it in pieces', () => {
  let fromJson: Uploaded;

  it('takes the Perfetto JSON gzipped, reduces it, and serves its summary, privately cached', async () => {
    const res = await upload(server, room, 'mlp.trace.json.gz', jsonGz, 'application/gzip');
    expect(res.status).toBe(201);
    fromJson = (await res.json()) as Uploaded;
    expect(fromJson).toMatchObject({ kind: 'trace', bytes: json.length, sha256: createHash('sha256').update(json).digest('hex') });
    const summary = await get(`${fromJson.id}/trace/summary`);
    expect(summary.status).toBe(200);
    expect(summary.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    const s = (await summary.json()) as TraceSummary;
    expect(s.format).toBe('chrome-json');
    expect(s.tracks.map((t) => [t.process, t.kind])).toEqual([['/host:CPU', 'host'], ['/host:CPU', 'host']]);
    expect(s.steps.map((x) => x.step)).toEqual([0, 1, 2]);
    expect(s.events).toBe(103);
    const again = await get(`${fromJson.id}/trace/summary`, room.tokens.viewer, { 'if-none-match': summary.headers.get('etag')! });
    expect(again.status).toBe(304);
  });

  it('serves the per-op aggregates, agreeing with the harness op table within 1%', async () => {
    const ops = (await (await get(`${fromJson.id}/trace/ops`)).json()) as OpAggregate[];
    expect(ops.map((o) => o.op).sort()).toEqual(python.ops.map((o) => o.name).sort());
    for (const row of python.ops) {
      const o = ops.find((x) => x.op === row.name)!;
      expect(o.count).toBe(row.count);
      expect(Math.abs(o.totalUs - row.totalUs)).toBeLessThanOrEqual(row.totalUs * 0.01);
    }
  });

  it('serves a window of events, of one track or of each, downsampled past the limit', async () => {
    const s = (await (await get(`${fromJson.id}/trace/summary`)).json()) as TraceSummary;
    const xla = s.tracks.find((t) => t.name.startsWith('tf_XLA'))!;
    const step1 = s.steps.find((x) => x.step === 1)!;
    const w = (await (await get(`${fromJson.id}/trace/events?track=${xla.id}&from=${step1.startUs}&to=${step1.startUs + step1.durUs}`)).json()) as Windows;
    expect(w.windows).toHaveLength(1);
    expect(w.windows[0]!.events.filter((e) => e.op).map((e) => e.op)).toEqual(['ynn_fusion.1', 'add_tanh_fusion', 'ynn_fusion']);
    expect(w.windows[0]!.events.every((e) => e.startUs + e.durUs >= step1.startUs && e.startUs <= step1.startUs + step1.durUs)).toBe(true);
    const few = (await (await get(`${fromJson.id}/trace/events?track=${xla.id}&limit=2`)).json()) as Windows;
    expect(few.windows[0]).toMatchObject({ total: xla.events, downsampled: true });
    expect(few.windows[0]!.events.length).toBeLessThanOrEqual(2);
    const all = (await (await get(`${fromJson.id}/trace/events`)).json()) as Windows;
    expect(all.windows.map((x) => x.total)).toEqual(s.tracks.map((t) => t.events));
    for (const bad of ['track=9', 'track=x', 'from=5&to=1', 'limit=0', 'limit=1000000', 'from=abc']) {
      const res = await get(`${fromJson.id}/trace/events?${bad}`);
      expect(res.status, bad).toBe(400);
    }
  });

  it('takes the xplane.pb of the same run and the raw JSON, with the same ops; the raw JSON is the same content', async () => {
    const res = await upload(server, room, 'mlp.xplane.pb', xplane, 'application/octet-stream');
    expect(res.status).toBe(201);
    const pb = (await res.json()) as Uploaded;
    expect((await (await get(`${pb.id}/trace/summary`)).json()) as TraceSummary).toMatchObject({ format: 'xplane', events: 103 });
    const a = (await (await get(`${fromJson.id}/trace/ops`)).json()) as OpAggregate[];
    const b = (await (await get(`${pb.id}/trace/ops`)).json()) as OpAggregate[];
    expect(b.map((o) => [o.module, o.op, o.count])).toEqual(a.map((o) => [o.module, o.op, o.count]));
    const raw = (await (await upload(server, room, 'mlp.json', json, 'application/octet-stream')).json()) as Uploaded;
    expect(raw.sha256).toBe(fromJson.sha256);
    const text = await get(`${raw.id}/text`, room.tokens.viewer, { 'accept-encoding': 'identity' });
    expect(Buffer.from(await text.arrayBuffer()).equals(json)).toBe(true);
  });

  it('reduces a trace sent as text too, as a capture posts it', async () => {
    const res = await fetch(`${server.url}/api/rooms/${room.id}/documents`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'profiler trace', text: JSON.stringify(JSON.parse(json.toString('utf8')), null, 1) }),
    });
    expect(res.status).toBe(201);
    const doc = (await res.json()) as Uploaded;
    expect(doc.kind).toBe('trace');
    const ops = (await (await get(`${doc.id}/trace/ops`)).json()) as OpAggregate[];
    expect(ops.map((o) => o.op).sort()).toEqual(python.ops.map((o) => o.name).sort());
  });

  it('refuses strangers, viewers, and reads from another room', async () => {
    expect((await get(`${fromJson.id}/trace/summary`, null)).status).toBe(401);
    expect((await get(`${fromJson.id}/trace/ops`, other.tokens.owner)).status).toBe(401);
    const wrongRoom = await fetch(`${server.url}/api/rooms/${other.id}/documents/${fromJson.id}/trace/summary`, { headers: { authorization: `Bearer ${other.tokens.owner}` } });
    expect(wrongRoom.status).toBe(404);
    expect((await upload(server, room, 'x.json.gz', jsonGz, 'application/gzip', room.tokens.viewer)).status).toBe(403);
    expect((await upload(server, room, '', jsonGz, 'application/gzip')).status).toBe(400);
  });
});

describe('bad traces are refused by name and store nothing', () => {
  const cases: [string, Uint8Array | string, string, number, RegExp][] = [
    ['malformed JSON', '{"traceEvents":[{"ph":"X","ts":1,"dur":}]}', 'application/octet-stream', 400, /not a readable trace: traceEvents\[0\.\.0\] are not valid JSON/],
    ['truncated gzip', jsonGz.subarray(0, jsonGz.length / 2), 'application/gzip', 400, /not a readable trace: the (gzip stream is broken|trace is cut short)/],
    ['truncated JSON', json.subarray(0, json.length / 2), 'application/octet-stream', 400, /cut short/],
    ['truncated xplane.pb', xplane.subarray(0, xplane.length - 10), 'application/octet-stream', 400, /XSpace is cut short/],
    ['numbers as strings', '{"traceEvents":[{"ph":"X","ts":"1","dur":2}]}', 'application/octet-stream', 400, /ts must be a number, not a string/],
    ['wrong types', '{"traceEvents":{"ph":"X"}}', 'application/octet-stream', 400, /traceEvents must be an array/],
    ['not a trace', 'GIF89a binary junk', 'application/octet-stream', 400, /not an XSpace/],
    ['deep nesting', `{"traceEvents":[${'['.repeat(3000)}`, 'application/octet-stream', 400, /traceEvents\[0\] is not an object/],
    ['deep nesting in an event', `{"traceEvents":[{"args":${'['.repeat(3000)}`, 'application/octet-stream', 413, /nests deeper than 64/],
    ['a huge string', `{"traceEvents":[{"ph":"X","ts":1,"dur":1,"name":"${'x'.repeat(2 * 1024 * 1024)}"}]}`, 'application/octet-stream', 413, /longer than 1048576 characters/],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"traceEvents":[{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]), 'application/octet-stream', 400, /not valid UTF-8/],
  ];
  for (const [what, body, type, status, message] of cases) {
    it(`${what}: ${status}`, async () => {
      const r = await createRoom(server, what);
      const res = await upload(server, r, 'bad.trace', body, type);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
      expect(await documentsOf(server, r)).toEqual([]);
    });
  }

  it('a trace past SEAM_TRACE_BYTES, sent plain or as a gzip bomb: 413', async () => {
    const r = await createRoom(small, 'small');
    const plain = await upload(small, r, 'big.json', json, 'application/octet-stream');
    expect(plain.status).toBe(413);
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/at most 4096 bytes \(SEAM_TRACE_BYTES\)/);
    const bomb = gzipSync(Buffer.from(`{"traceEvents":[${' '.repeat(10_000_000)}]}`));
    expect(bomb.length).toBeLessThan(4096 * 4);
    const res = await upload(small, r, 'bomb.json.gz', bomb.subarray(0, 4000), 'application/gzip');
    expect([400, 413]).toContain(res.status);
    expect((await upload(small, r, 'bomb.json.gz', gzipSync(Buffer.from(`{"traceEvents":[${' '.repeat(100_000)}]}`)), 'application/gzip')).status).toBe(413);
    expect(await documentsOf(small, r)).toEqual([]);
  });

  it('a trace while every reducer is busy: 503 busy, and the held one still lands', async () => {
    const one = await startTestServer({ env: { SEAM_ANALYZER_WORKERS: '1' } });
    try {
      const r = await createRoom(one, 'busy');
      let release!: () => void;
      const held = new ReadableStream<Uint8Array>({
        start(ctl) {
          ctl.enqueue(new Uint8Array(json.subarray(0, 100)));
          release = () => {
            ctl.enqueue(new Uint8Array(json.subarray(100)));
            ctl.close();
          };
        },
      });
      const first = fetch(`${one.url}/api/rooms/${r.id}/documents?title=held.json`, {
        method: 'POST', headers: { authorization: `Bearer ${r.tokens.owner}`, 'content-type': 'application/octet-stream' }, body: held, duplex: 'half',
      } as RequestInit);
      // Until the held trace's reduction has begun, another upload may still be taken.
      let res = await upload(one, r, 'second.json.gz', jsonGz, 'application/gzip');
      while (res.status === 201) res = await upload(one, r, 'second.json.gz', jsonGz, 'application/gzip');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: 'busy' } });
      release();
      expect((await first).status).toBe(201);
    } finally {
      await one.close();
    }
  });
});
