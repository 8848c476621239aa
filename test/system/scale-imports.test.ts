import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DocumentMeta, ImportResult } from '@seam/shared/model';
import { createRoom, waitFor, type CreatedRoom } from '../helpers';
import { openPool } from '../../server/src/store/postgres/pool';
import { postgresStaging } from '../../server/src/store/postgres/staging';
import { useScaledCluster } from '../helpers/scale/scaled-cluster';
import { TYPES, archive, postImport } from '../helpers/import-kit';

/**
 * Scaled mode's imports: files staged through one instance are in PostgreSQL, so an import
 * committed through another finds them, and a third lists what it added. What staging refuses
 * (a wrong or cut-short body, the room's quota passed across instances, PostgreSQL gone mid-PUT)
 * is refused by name, and nothing of it is staged.
 */
const MIB = 1024 * 1024;
/** The room's staging quota: two 8 MiB blobs do not fit, one 6 MiB blob and a broken-off upload do. */
const STAGED_BYTES = 12 * MIB;
const HLO = readFileSync(new URL('../fixtures/ir/mlp/hlo-opt.txt', import.meta.url));
const TRACE_GZ = readFileSync(new URL('../fixtures/trace/mlp.trace.json.gz', import.meta.url));



const scaled = useScaledCluster(3, 'seam_imports', { SEAM_STAGED_BYTES: String(STAGED_BYTES) });

/** Instance `i`'s own address. */
const { direct } = scaled;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** `PUT /api/rooms/:id/blobs/:sha256` on instance `i`; resolves to the status and the error code, if any. */
async function put(i: number, room: CreatedRoom, name: string, body: BodyInit): Promise<{ status: number; code?: string; message?: string }> {
  const res = await fetch(`${direct(i).url}/api/rooms/${room.id}/blobs/${name}`, {
    method: 'PUT', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' }, body, duplex: 'half',
  } as RequestInit);
  const json = (await res.json()) as { error?: { code: string; message: string } };
  return { status: res.status, code: json.error?.code, message: json.error?.message };
}

/** Where instance `i` says a blob is: `staged`, `document`, or 404. */
async function where(i: number, room: CreatedRoom, name: string): Promise<string | number> {
  const res = await fetch(`${direct(i).url}/api/rooms/${room.id}/blobs/${name}`, { headers: { authorization: `Bearer ${room.tokens.annotator}` } });
  return res.status === 200 ? ((await res.json()) as { where: string }).where : res.status;
}

/** A manifest import committed through instance `i`. */
async function commit(i: number, room: CreatedRoom, files: { path: string; body: Uint8Array }[]): Promise<{ status: number; json: ImportResult & { error?: { code: string } } }> {
  return postImport(direct(i), room, JSON.stringify({ files: files.map((f) => ({ path: f.path, sha256: sha(f.body), bytes: f.body.length })) }), 'application/json');
}

/** The room's staged uploads in PostgreSQL: `whole` those staged, `partial` those that never got their sha256. */
async function stagedRows(room: CreatedRoom): Promise<{ whole: number; partial: number }> {
  const db = new pg.Client({ connectionString: scaled.databaseUrl });
  await db.connect();
  try {
    const r = await db.query<{ whole: string; partial: string }>(
      'SELECT count(sha256) AS whole, count(*) - count(sha256) AS partial FROM staged_uploads WHERE room_id = $1', [room.id]);
    return { whole: Number(r.rows[0]!.whole), partial: Number(r.rows[0]!.partial) };
  } finally {
    await db.end();
  }
}

/** The room's documents as instance `i` lists them. */
async function listed(i: number, room: CreatedRoom): Promise<DocumentMeta[]> {
  const res = await fetch(`${direct(i).url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
  return ((await res.json()) as { documents: DocumentMeta[] }).documents;
}

/** A body that sends `first`, then waits for `go` before sending `rest` and ending. */
function heldBody(first: Uint8Array, rest: Uint8Array, go: Promise<void>): ReadableStream<Uint8Array> {
  let step = 0;
  return new ReadableStream({
    async pull(controller) {
      if (step === 0) controller.enqueue(first);
      else if (step === 1) {
        await go;
        controller.enqueue(rest);
      } else controller.close();
      step++;
    },
  });
}

describe('scaled mode: imports on three instances', () => {
  it('commits through one instance the files staged through another, lists them through a third, and takes the same files again as unchanged', async () => {
    const room = await createRoom(direct(0), 'import');
    const files = [{ path: 'dump/mlp.hlo-opt.txt', body: HLO }, { path: 'profile/mlp.trace.json.gz', body: TRACE_GZ }];
    for (const f of files) expect(await put(0, room, sha(f.body), new Uint8Array(f.body))).toMatchObject({ status: 201 });
    expect(await where(2, room, sha(HLO))).toBe('staged');
    const first = await commit(1, room, files);
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect({ added: first.json.added, unchanged: first.json.unchanged }).toEqual({ added: 2, unchanged: 0 });
    const docs = await listed(2, room);
    expect(docs.map((d) => d.kind).sort()).toEqual(['hlo-opt', 'trace']);
    const hlo = docs.find((d) => d.kind === 'hlo-opt')!;
    const text = await fetch(`${direct(2).url}/api/rooms/${room.id}/documents/${hlo.id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    expect(Buffer.from(await text.arrayBuffer()).equals(HLO)).toBe(true);
    // The import took its staged blobs out of the shared staging.
    expect(await stagedRows(room)).toEqual({ whole: 0, partial: 0 });
    expect(await where(0, room, sha(HLO))).toBe('document');
    // The gzipped trace is stored as its text: the file's own sha256 still tells it is the same file.
    expect(await where(1, room, sha(TRACE_GZ))).toBe(404);
    expect(await put(2, room, sha(TRACE_GZ), new Uint8Array(TRACE_GZ))).toMatchObject({ status: 201 });
    const again = await commit(0, room, files);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect({ added: again.json.added, unchanged: again.json.unchanged }).toEqual({ added: 0, unchanged: 2 });
    expect((await listed(1, room)).length).toBe(2);
    // An archive streams through the one instance HAProxy gives it, staged in the shared store and committed there.
    const zipped = await postImport({ url: scaled.cluster.url }, room, archive('zip', [{ name: 'more/notes.txt', data: 'the softmax spills\n' }]), TYPES.zip);
    expect(zipped.status, JSON.stringify(zipped.json)).toBe(201);
    expect((await listed(0, room)).length).toBe(3);
    expect(await stagedRows(room)).toEqual({ whole: 0, partial: 0 });
  });

  it('refuses a wrong sha256, a cut-short body and the room\'s quota passed across instances by name, staging nothing of them', async () => {
    const room = await createRoom(direct(0), 'refusals');
    const wrong = await put(0, room, sha(Buffer.from('something else')), new Uint8Array(HLO));
    expect(wrong).toMatchObject({ status: 400, code: 'bad_request' });
    expect(wrong.message).toMatch(/changed or cut short/);
    const cut = await put(1, room, sha(HLO), new Uint8Array(HLO.subarray(0, HLO.length >> 1)));
    expect(cut).toMatchObject({ status: 400, code: 'bad_request' });
    expect(await where(2, room, sha(HLO))).toBe(404);
    const a = Buffer.alloc(8 * MIB, 'a');
    const b = Buffer.alloc(8 * MIB, 'b');
    expect(await put(0, room, sha(a), new Uint8Array(a))).toMatchObject({ status: 201 });
    const over = await put(1, room, sha(b), new Uint8Array(b));
    expect(over).toMatchObject({ status: 413, code: 'too_large' });
    expect(over.message).toMatch(/SEAM_STAGED_BYTES/);
    expect(await where(2, room, sha(b))).toBe(404);
    expect(await stagedRows(room)).toEqual({ whole: 1, partial: 0 });
    const missing = await commit(2, room, [{ path: 'b.txt', body: b }]);
    expect({ status: missing.status, code: missing.json.error?.code }).toEqual({ status: 409, code: 'missing_blob' });
  });

  it('answers 503 store_unavailable when PostgreSQL stops mid-PUT, and has staged nothing of it once PostgreSQL is back', async () => {
    const room = await createRoom(direct(0), 'postgres stopped');
    const body = Buffer.alloc(6 * MIB, 'c');
    let go!: () => void;
    const released = new Promise<void>((resolve) => (go = resolve));
    const answer = put(1, room, sha(body), heldBody(body.subarray(0, 5 * MIB), body.subarray(5 * MIB), released));
    // The first 4 MiB chunk is written before PostgreSQL goes.
    await waitFor(async () => (await stagedRows(room)).partial === 1, 'the upload under way in PostgreSQL');
    await scaled.postgres.stop();
    try {
      go();
      expect(await answer).toMatchObject({ status: 503, code: 'store_unavailable' });
    } finally {
      await scaled.postgres.start();
    }
    for (const i of [0, 1, 2]) expect(await where(i, room, sha(body))).toBe(404);
    expect((await stagedRows(room)).whole).toBe(0);
    const missing = await commit(0, room, [{ path: 'c.txt', body }]);
    expect(missing.json.error?.code).toBe('missing_blob');
    // Staged whole once PostgreSQL is back.
    expect(await put(2, room, sha(body), new Uint8Array(body))).toMatchObject({ status: 201 });
    expect(await where(0, room, sha(body))).toBe('staged');
  });

  it('expires a staged blob SEAM_STAGED_S after it was last staged, for every instance, and staging it again renews it', async () => {
    const pool = openPool(scaled.databaseUrl, 2);
    const clock = { t: 1_000_000 };
    const limits = { stagedBytes: STAGED_BYTES, stagedSeconds: 60 };
    // Two instances' views of the shared staging, on one clock.
    const [a, b] = [postgresStaging(pool, limits, () => clock.t), postgresStaging(pool, limits, () => clock.t)];
    try {
      const bound = { maxBytes: MIB, tooLarge: 'too large' };
      const body = Buffer.from('a staged file\n');
      const staged = await a.put('expiring-room', Readable.from([body]), bound, sha(body));
      expect(await b.size('expiring-room', staged.sha256)).toBe(body.length);
      clock.t += 59_000;
      await b.put('expiring-room', Readable.from([body]), bound);
      const copies = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM staged_uploads WHERE room_id = $1 AND sha256 = $2', ['expiring-room', staged.sha256])).rows[0]!.n;
      // The first copy renewed and kept (an import may be reading it), the second dropped.
      expect(await copies()).toBe(1);
      clock.t += 59_000;
      expect(await a.size('expiring-room', staged.sha256)).toBe(body.length);
      clock.t += 2_000;
      expect(await a.size('expiring-room', staged.sha256)).toBeUndefined();
      expect(await b.size('expiring-room', staged.sha256)).toBeUndefined();
      // The next put sweeps it: no rows of the expired blob are left.
      await b.put('expiring-room', Readable.from([Buffer.from('another')]), bound);
      expect(await copies()).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
