import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestDocument } from '../ingest';
import { BODY_PIECE_BYTES } from '../store/shared-store';
import { testApp, type TestApp } from '../testing';

const HLO = 'HloModule jit_f\n\nENTRY main {\n  p0 = f32[8,8]{1,0} parameter(0)\n  ROOT r = f32[8,8]{1,0} add(p0, p0)\n}\n';

let t: TestApp;
beforeEach(() => {
  t = testApp({ documentBytes: 64 * 1024 });
});
afterEach(() => t.close());

describe('documents API', () => {
  it('ingests JSON and text/plain dumps, stores identical text once, and lists them', async () => {
    const room = await t.room();
    const a = await t.call('POST', `/api/rooms/${room.id}/documents`, { token: room.tokens.annotator, json: { title: 'before opt', text: HLO } });
    expect(a.status).toBe(201);
    const meta = (await a.json()) as { id: string; kind: string; bytes: number; sha256: string };
    expect(meta).toMatchObject({ kind: 'hlo', bytes: Buffer.byteLength(HLO) });
    expect(meta.sha256).toMatch(/^[0-9a-f]{64}$/);
    const b = await t.call('POST', `/api/rooms/${room.id}/documents?title=again`, { token: room.tokens.owner, body: HLO, headers: { 'content-type': 'text/plain' } });
    expect(b.status).toBe(201);
    expect(((await b.json()) as { sha256: string }).sha256).toBe(meta.sha256);
    expect((t.deps.store.db.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(1);
    const listed = (await (await t.call('GET', `/api/rooms/${room.id}`, { token: room.tokens.viewer })).json()) as { documents: { title: string }[] };
    expect(listed.documents.map((d) => d.title).sort()).toEqual(['again', 'before opt']);
    expect(t.deps.rooms.get(room.id).doc.getMap('documents').get(meta.id)).toMatchObject({ id: meta.id, title: 'before opt', kind: 'hlo' });
  });

  it('refuses viewers (403), strangers (401), bad bodies (400) and oversized dumps (413)', async () => {
    const room = await t.room();
    const path = `/api/rooms/${room.id}/documents`;
    expect((await t.call('POST', path, { token: room.tokens.viewer, json: { title: 't', text: HLO } })).status).toBe(403);
    expect((await t.call('POST', path, { json: { title: 't', text: HLO } })).status).toBe(401);
    expect((await t.call('POST', path, { token: room.tokens.owner, json: { title: 't' } })).status).toBe(400);
    expect((await t.call('POST', path, { token: room.tokens.owner, body: '{', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.call('POST', path, { token: room.tokens.owner, body: HLO, headers: { 'content-type': 'text/plain' } })).status).toBe(400);
    expect((await t.call('POST', path, { token: room.tokens.owner, body: HLO, headers: { 'content-type': 'image/png' } })).status).toBe(400);
    const big = await t.call('POST', `${path}?title=big`, { token: room.tokens.owner, body: 'x'.repeat(70 * 1024), headers: { 'content-type': 'text/plain' } });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: 'too_large' } });
    expect(t.deps.store.documents.list(room.id)).toEqual([]);
  });

  it('serves the text gzip-encoded with an immutable ETag, plain when gzip is not accepted, and 304 on a match', async () => {
    const room = await t.room();
    const { id, sha256 } = (await (await t.call('POST', `/api/rooms/${room.id}/documents`, { token: room.tokens.owner, json: { title: 'd', text: HLO } })).json()) as { id: string; sha256: string };
    const path = `/api/rooms/${room.id}/documents/${id}/text`;
    const gz = await t.call('GET', `${path}?token=${room.tokens.viewer}`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('etag')).toBe(`"${sha256}"`);
    expect(gz.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString('utf8')).toBe(HLO);
    const plain = await t.call('GET', path, { token: room.tokens.viewer });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(HLO);
    const cached = await t.call('GET', path, { token: room.tokens.viewer, headers: { 'if-none-match': `"${sha256}"` } });
    expect(cached.status).toBe(304);
    expect((await t.call('GET', path)).status).toBe(401);
    expect((await t.call('GET', `/api/rooms/${room.id}/documents/nope/text`, { token: room.tokens.owner })).status).toBe(404);
  });

  it('serves a dump whose gzip spans several pieces of the store whole, gzipped and plain', async () => {
    const big = testApp({ documentBytes: 16 * 1024 * 1024, roomDocumentBytes: 64 * 1024 * 1024 });
    try {
      const room = await big.room();
      // Random bytes as hex lines: about half their size gzipped, so 12 MiB of text is two pieces and more.
      const text = Array.from({ length: 12 * 1024 }, () => randomBytes(512).toString('hex')).join('\n');
      const { id, sha256 } = (await (await big.call('POST', `/api/rooms/${room.id}/documents?title=big`, { token: room.tokens.owner, body: text, headers: { 'content-type': 'text/plain' } })).json()) as { id: string; sha256: string };
      const stored = await big.deps.content.documents.textGzipPieces(sha256);
      expect(stored!.bytes).toBeGreaterThan(BODY_PIECE_BYTES);
      const path = `/api/rooms/${room.id}/documents/${id}/text`;
      const gz = await big.call('GET', path, { token: room.tokens.viewer, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers.get('content-length')).toBe(String(stored!.bytes));
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString('utf8')).toBe(text);
      expect(await (await big.call('GET', path, { token: room.tokens.viewer })).text()).toBe(text);
    } finally {
      big.close();
    }
  });

  it('serves the stored analysis as JSON', async () => {
    const room = await t.room();
    const { id } = (await (await t.call('POST', `/api/rooms/${room.id}/documents`, { token: room.tokens.owner, json: { title: 'd', text: HLO } })).json()) as { id: string };
    const res = await t.call('GET', `/api/rooms/${room.id}/documents/${id}/analysis`, { token: room.tokens.viewer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const analysis = (await res.json()) as { index: { kind: string; bytes: number } };
    expect(analysis.index.kind).toBe('hlo');
  });
});

describe('documents provenance', () => {
  it('lists who added a captured dump and from which capture in GET /api/rooms/:id', async () => {
    const room = await t.room();
    await ingestDocument(t.deps, room.id, 'optimized', HLO, { kind: 'hlo-opt', addedBy: 'runner:local', captureId: 'cap_abc' });
    await t.call('POST', `/api/rooms/${room.id}/documents`, { token: room.tokens.owner, json: { title: 'pasted', text: HLO } });
    const listed = (await (await t.call('GET', `/api/rooms/${room.id}`, { token: room.tokens.viewer })).json()) as { documents: Record<string, unknown>[] };
    const byTitle = Object.fromEntries(listed.documents.map((d) => [d.title, d]));
    expect(byTitle.optimized).toMatchObject({ kind: 'hlo-opt', addedBy: 'runner:local', captureId: 'cap_abc' });
    expect(byTitle.pasted).not.toHaveProperty('addedBy');
    expect(byTitle.pasted).not.toHaveProperty('captureId');
  });
});
