import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RoomKey, type DocumentMeta } from '@seam/shared/model';
import { decodeWindowColumns } from '@seam/shared/trace';
import { addDocument, connectClient, createRoom, waitFor, type CreatedRoom } from '../helpers';
import { useScaledCluster } from '../helpers/scale/scaled-cluster';

/**
 * Scaled mode's dumps and traces: three Seam instances on one PostgreSQL and one Redis, behind
 * HAProxy. What one instance ingests, any other lists and serves; what the shared store refuses
 * or cannot take is refused by name on every instance, and nothing of it is stored.
 */
const DOCUMENT_BYTES = 256 * 1024;
const HLO = readFileSync(new URL('../fixtures/ir/mlp/hlo-opt.txt', import.meta.url), 'utf8');
const TRACE = readFileSync(new URL('../fixtures/trace/mlp.trace.json.gz', import.meta.url));



const scaled = useScaledCluster(3, 'seam_content', { SEAM_DOCUMENT_BYTES: String(DOCUMENT_BYTES) });

/** Instance `i`'s own address. */
const { direct } = scaled;

/** `GET path` on instance `i` with `token` as a bearer and `headers`. */
const get = (i: number, path: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${direct(i).url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

/** The room's documents as `GET /api/rooms/:id` on instance `i` lists them. */
async function listed(i: number, room: CreatedRoom): Promise<DocumentMeta[]> {
  const res = await get(i, `/api/rooms/${room.id}`, room.tokens.viewer);
  expect(res.status).toBe(200);
  return ((await res.json()) as { documents: DocumentMeta[] }).documents;
}

/** Rows of `table` in the shared store (PostgreSQL, read directly). */
async function rows(table: 'documents' | 'blobs' | 'trace_reductions'): Promise<number> {
  const db = new pg.Client({ connectionString: scaled.databaseUrl });
  await db.connect();
  try {
    return Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  } finally {
    await db.end();
  }
}

/** Runs `sql` on the shared database as its owner. */
async function admin(sql: string): Promise<void> {
  const db = new pg.Client({ connectionString: scaled.databaseUrl });
  await db.connect();
  try {
    await db.query(sql);
  } finally {
    await db.end();
  }
}

/** Posts a trace (gzipped, as uploaded) to instance `i`. */
const uploadTrace = (i: number, room: CreatedRoom, body: Uint8Array, token = room.tokens.owner) =>
  fetch(`${direct(i).url}/api/rooms/${room.id}/documents?title=mlp.trace.json.gz`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' }, body: new Uint8Array(body),
  });

describe('scaled mode: dumps and traces on three instances', () => {
  it('lists a dump pasted through one instance, and serves its text and analysis through the others and into their clients\' room documents', async () => {
    const room = await createRoom(direct(0), 'dump');
    const watcher = connectClient(direct(2), room.id, room.tokens.viewer);
    await watcher.synced();
    const id = await addDocument(direct(0), room.id, room.tokens.annotator, 'mlp.hlo', HLO);
    for (const i of [1, 2]) expect((await listed(i, room)).map((d) => [d.id, d.kind, d.bytes])).toEqual([[id, 'hlo-opt', Buffer.byteLength(HLO)]]);
    // Sent gzipped as stored (fetch decodes it), and decompressed by the server for a client that does not take gzip.
    const gz = await get(1, `/api/rooms/${room.id}/documents/${id}/text`, room.tokens.viewer, { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(HLO);
    const plain = await get(2, `/api/rooms/${room.id}/documents/${id}/text`, room.tokens.viewer, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(HLO);
    expect((await get(2, `/api/rooms/${room.id}/documents/${id}/text`, room.tokens.viewer, { 'if-none-match': plain.headers.get('etag')! })).status).toBe(304);
    const whole = (await (await get(1, `/api/rooms/${room.id}/documents/${id}/analysis`, room.tokens.viewer)).json()) as { index: { kind: string } };
    expect(whole.index.kind).toBe('hlo-opt');
    for (const part of ['views', 'keys']) {
      const res = await get(2, `/api/rooms/${room.id}/documents/${id}/analysis?part=${part}`, room.tokens.viewer);
      expect(res.status).toBe(200);
      expect(Object.keys((await res.json()) as object).length).toBeGreaterThan(0);
    }
    // The stock client on instance 2 got the announcement instance 0 made in the room document.
    await waitFor(() => watcher.doc.getMap(RoomKey.documents).has(id), 'the dump in the room document of a client of another instance');
    expect(watcher.doc.getMap(RoomKey.documents).get(id)).toMatchObject({ id, title: 'mlp.hlo', kind: 'hlo-opt' });
    watcher.destroy();
    // An annotation on it through a third instance finds the dump and its text.
    const annotate = await fetch(`${direct(1).url}/api/rooms/${room.id}/annotations`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docId: id, from: 0, to: 9, kind: 'note', body: 'the module' }),
    });
    expect(annotate.status).toBe(201);
    expect(((await annotate.json()) as { quote: { exact: string } }).quote.exact).toBe(HLO.slice(0, 9));
    // The room's export through the instance that did neither: the dump, the annotation and its quoted line.
    const exported = (await (await get(0, `/api/rooms/${room.id}/export.json`, room.tokens.viewer)).json()) as {
      documents: { id: string }[]; annotations: { body: string; document: string; lineFrom?: number; quoted: string }[];
    };
    expect(exported.documents.map((d) => d.id)).toEqual([id]);
    expect(exported.annotations.map(({ body, document, lineFrom, quoted }) => ({ body, document, lineFrom, quoted })))
      .toEqual([{ body: 'the module', document: 'mlp.hlo', lineFrom: 1, quoted: HLO.split('\n')[0] }]);
    expect(await (await get(2, `/api/rooms/${room.id}/export.md`, room.tokens.viewer)).text()).toContain(HLO.split('\n')[0]);
  });

  it('serves a trace uploaded through one instance (summary, overview, events, original) through another', async () => {
    const room = await createRoom(direct(0), 'trace');
    const upload = await uploadTrace(0, room, TRACE);
    expect(upload.status).toBe(201);
    const { id } = (await upload.json()) as { id: string };
    const base = `/api/rooms/${room.id}/documents/${id}/trace`;
    const summary = (await (await get(1, `${base}/summary`, room.tokens.viewer)).json()) as { tracks: unknown[]; endUs: number };
    expect(summary.tracks.length).toBeGreaterThan(0);
    const overview = await get(2, `${base}/overview`, room.tokens.viewer);
    expect(overview.status).toBe(200);
    expect(decodeWindowColumns(new Uint8Array(await overview.arrayBuffer())).tracks.some((t) => t.start.length > 0)).toBe(true);
    const events = (await (await get(1, `${base}/events?track=0`, room.tokens.viewer)).json()) as { windows: { track: number }[] };
    expect(events.windows.map((w) => w.track)).toEqual([0]);
    const original = await get(2, `${base}/original`, room.tokens.viewer);
    expect(Buffer.from(await original.arrayBuffer()).equals(TRACE)).toBe(true);
  });

  it('refuses malformed, oversized and unauthorized uploads by name on any instance, storing nothing', async () => {
    const room = await createRoom(direct(0), 'refusals');
    const before = await Promise.all([rows('documents'), rows('blobs'), rows('trace_reductions')]);
    const post = (i: number, token: string | undefined, body: string, type: string, query = '') =>
      fetch(`${direct(i).url}/api/rooms/${room.id}/documents${query}`, { method: 'POST', headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': type }, body });
    const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
    expect(await code(await post(1, room.tokens.owner, '{', 'application/json'))).toBe('bad_request');
    expect(await code(await post(2, room.tokens.owner, HLO, 'image/png'))).toBe('bad_request');
    expect((await post(2, room.tokens.viewer, JSON.stringify({ title: 't', text: HLO }), 'application/json')).status).toBe(403);
    expect((await post(0, undefined, JSON.stringify({ title: 't', text: HLO }), 'application/json')).status).toBe(401);
    expect((await uploadTrace(1, room, TRACE, room.tokens.viewer)).status).toBe(403);
    const broken = await uploadTrace(2, room, TRACE.subarray(0, TRACE.length >> 1));
    expect([broken.status, await code(broken)]).toEqual([400, 'bad_request']);
    expect((await get(1, `/api/rooms/${room.id}/documents/nope/text`, room.tokens.viewer)).status).toBe(404);
    // Through HAProxy: the instance answers before reading the whole body and closes that connection.
    const big = await fetch(`${scaled.cluster.url}/api/rooms/${room.id}/documents?title=big`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'text/plain' }, body: 'x'.repeat(DOCUMENT_BYTES + 1),
    });
    expect([big.status, await code(big)]).toEqual([413, 'too_large']);
    expect(await listed(0, room)).toEqual([]);
    expect(await Promise.all([rows('documents'), rows('blobs'), rows('trace_reductions')])).toEqual(before);
  });

  it('answers 503 store_unavailable when PostgreSQL refuses the document row after the blob and the reduction, lists nothing, and takes the same trace whole afterwards', async () => {
    const room = await createRoom(direct(0), 'disk full');
    const watcher = connectClient(direct(2), room.id, room.tokens.viewer);
    await watcher.synced();
    // PostgreSQL's own refusal when its disk is full (SQLSTATE 53100), on the last write of an upload.
    await admin(`CREATE FUNCTION refuse_document() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no space left' USING ERRCODE = '53100'; END $$;
      CREATE TRIGGER refuse_document BEFORE INSERT ON documents FOR EACH ROW EXECUTE FUNCTION refuse_document();`);
    // Bytes no earlier test stored, so that the blob and the reduction are written before the refusal.
    const json = JSON.parse(gunzipSync(TRACE).toString('utf8')) as Record<string, unknown>;
    const plain = Buffer.from(JSON.stringify({ ...json, displayTimeUnit: 'ns' }));
    const trace = gzipSync(plain);
    const sha256 = createHash('sha256').update(plain).digest('hex');
    try {
      const refused = await uploadTrace(1, room, trace);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
    } finally {
      await admin('DROP TRIGGER refuse_document ON documents; DROP FUNCTION refuse_document();');
    }
    expect(await listed(0, room)).toEqual([]);
    // What was written before the refusal is keyed by content and listed nowhere.
    const db = new pg.Client({ connectionString: scaled.databaseUrl });
    await db.connect();
    try {
      expect((await db.query('SELECT 1 FROM blobs WHERE sha256 = $1', [sha256])).rowCount).toBe(1);
      expect((await db.query('SELECT 1 FROM trace_reductions WHERE sha256 = $1', [sha256])).rowCount).toBe(1);
      expect((await db.query('SELECT 1 FROM documents WHERE sha256 = $1', [sha256])).rowCount).toBe(0);
    } finally {
      await db.end();
    }
    const again = await uploadTrace(0, room, trace);
    expect(again.status).toBe(201);
    const { id } = (await again.json()) as { id: string };
    expect((await listed(2, room)).map((d) => d.id)).toEqual([id]);
    const summary = await get(1, `/api/rooms/${room.id}/documents/${id}/trace/summary`, room.tokens.viewer);
    expect(summary.status).toBe(200);
    await waitFor(() => watcher.doc.getMap(RoomKey.documents).size === 1, 'the stored trace announced');
    expect([...watcher.doc.getMap(RoomKey.documents).keys()]).toEqual([id]);
    watcher.destroy();
  });

  it('answers 503 store_unavailable to uploads while PostgreSQL is stopped, and stores nothing of them', async () => {
    const room = await createRoom(direct(0), 'postgres stopped');
    const text = `${HLO}\n// while down\n`;
    await scaled.postgres.stop();
    try {
      const paste = await fetch(`${direct(0).url}/api/rooms/${room.id}/documents`, {
        method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'down', text }),
      });
      expect(paste.status).toBe(503);
      expect(((await paste.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      const trace = await uploadTrace(1, room, TRACE);
      expect(trace.status).toBe(503);
      expect(((await trace.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
    } finally {
      await scaled.postgres.start();
    }
    expect(await listed(2, room)).toEqual([]);
    const db = new pg.Client({ connectionString: scaled.databaseUrl });
    await db.connect();
    try {
      expect((await db.query('SELECT 1 FROM documents WHERE room_id = $1', [room.id])).rowCount).toBe(0);
    } finally {
      await db.end();
    }
    // The same dump once PostgreSQL is back: stored and listed.
    const id = await addDocument(direct(1), room.id, room.tokens.owner, 'back', text);
    expect((await listed(0, room)).map((d) => d.id)).toEqual([id]);
  });
});
