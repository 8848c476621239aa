import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANALYSIS_PARTS_VERSION, readAnalysis, type AnalysisKeys, type AnalysisViews } from '@seam/shared/ir';
import { testApp, type TestApp, type TestRoom } from '../testing';

const HLO = [
  'HloModule jit_f',
  '',
  'fused_computation {',
  '  p0 = f32[8,8]{1,0} parameter(0)',
  '  ROOT e = f32[8,8]{1,0} exponential(p0), metadata={op_name="jit(f)/exp" source_file="f.py" source_line=3}',
  '}',
  '',
  'ENTRY main {',
  '  p0 = f32[8,8]{1,0} parameter(0)',
  '  f = f32[8,8]{1,0} fusion(p0), kind=kLoop, calls=fused_computation',
  '  ROOT r = f32[8,8]{1,0} add(f, f), metadata={op_name="jit(f)/add" source_file="f.py" source_line=4}',
  '}',
  '',
].join('\n');

let t: TestApp;
let room: TestRoom;
let docId: string;
let base: string;
beforeEach(async () => {
  t = testApp();
  room = await t.room();
  docId = await t.addDocument(room, 'f.hlo', HLO);
  base = `/api/rooms/${room.id}/documents/${docId}/analysis`;
});
afterEach(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.call('GET', path, { token: room.tokens.viewer, headers });
const whole = async () => (await (await get(base)).json()) as unknown;
const parts = async () => [(await (await get(`${base}?part=views`)).json()) as AnalysisViews, (await (await get(`${base}?part=keys`)).json()) as AnalysisKeys] as const;

describe('analysis parts API', () => {
  it('serves the views and keys parts, which together are the whole analysis', async () => {
    const [views, keys] = await parts();
    expect(views.version).toBe(ANALYSIS_PARTS_VERSION);
    expect(views.index.outline.length).toBeGreaterThan(0);
    expect(views.index.fusions.map((f) => f.name)).toEqual(['f']);
    expect(views.index.values.names.split('\n')).toContain('r');
    expect(views).not.toHaveProperty('index.keys');
    expect(keys.strings).toContain('jit(f)/add');
    expect(readAnalysis(views, keys)).toEqual(await whole());
  });

  it('caches each part under its own immutable ETag, gzip when accepted, 304 on a match', async () => {
    const sha = t.deps.store.documents.get(room.id, docId)?.sha256;
    const res = await get(`${base}?part=views`, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    const etag = res.headers.get('etag');
    expect(etag).toBe(`"${sha}.views.${ANALYSIS_PARTS_VERSION}"`);
    expect(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'))).toMatchObject({ version: ANALYSIS_PARTS_VERSION });
    expect((await get(`${base}?part=keys`)).headers.get('etag')).toBe(`"${sha}.keys.${ANALYSIS_PARTS_VERSION}"`);
    expect((await get(`${base}?part=views`, { 'if-none-match': etag ?? '' })).status).toBe(304);
    expect((await get(`${base}?part=keys`, { 'if-none-match': etag ?? '' })).status).toBe(200);
    expect((await get(base, { 'if-none-match': etag ?? '' })).status).toBe(200);
  });

  it('splits an analysis stored before the parts existed once, on the first request, and keeps the parts', async () => {
    const db = t.deps.store.db;
    db.exec('DELETE FROM analysis_parts');
    const split = vi.spyOn(t.deps.analyzer, 'partsGzip');
    const [first, again] = await Promise.all([parts(), parts()]);
    expect(split).toHaveBeenCalledTimes(1);
    expect(again).toEqual(first);
    expect(readAnalysis(...first)).toEqual(await whole());
    expect((db.prepare('SELECT part, version FROM analysis_parts ORDER BY part').all() as unknown[])).toEqual([
      { part: 'keys', version: ANALYSIS_PARTS_VERSION },
      { part: 'views', version: ANALYSIS_PARTS_VERSION },
    ]);
    await parts();
    expect(split).toHaveBeenCalledTimes(1);
  });

  it('rewrites parts stored in another version', async () => {
    const db = t.deps.store.db;
    db.prepare("UPDATE analysis_parts SET version = ?, gzip = x'00'").run(ANALYSIS_PARTS_VERSION - 1);
    const [views, keys] = await parts();
    expect(readAnalysis(views, keys)).toEqual(await whole());
    expect((db.prepare('SELECT DISTINCT version FROM analysis_parts').all() as unknown[])).toEqual([{ version: ANALYSIS_PARTS_VERSION }]);
  });

  it('refuses unknown, empty and oversized parts (400), strangers (401) and unknown documents (404), storing nothing', async () => {
    for (const part of ['outline', '', 'views,keys', 'x'.repeat(100_000)]) {
      const res = await get(`${base}?part=${encodeURIComponent(part)}`);
      expect(res.status, part.slice(0, 20)).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('bad_request');
      expect(body.error.message.length).toBeLessThan(200);
    }
    expect((await t.call('GET', `${base}?part=views`)).status).toBe(401);
    expect((await t.call('GET', `${base}?part=views`, { token: 'not-a-token' })).status).toBe(401);
    const other = await t.room('other');
    expect((await t.call('GET', `${base}?part=views`, { token: other.tokens.owner })).status).toBe(401);
    expect((await t.call('GET', `${base}?part=nope`)).status).toBe(401);
    expect((await get(`/api/rooms/${room.id}/documents/nope/analysis?part=views`)).status).toBe(404);
    expect((await get(`/api/rooms/${room.id}/documents/${'d'.repeat(10_000)}/analysis?part=keys`)).status).toBe(404);
    expect((t.deps.store.db.prepare('SELECT count(*) AS n FROM analysis_parts').get() as { n: number }).n).toBe(2);
  });
});
