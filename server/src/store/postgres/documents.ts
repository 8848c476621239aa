import type pg from 'pg';
import { ANALYSIS_PARTS_VERSION, type AnalysisPart } from '@seam/shared/ir';
import type { DocumentMeta } from '@seam/shared/model';
import { COLUMNS, moduleOf, rowOf, toMeta, type DocumentRow, type DocumentUsage, type StoredBlob } from '../documents-store';
import { BODY_PIECE_BYTES, type DocumentBlobs, type GzipPieces } from '../shared-store';
import { bytea, placeholders, query, transaction, type Queryable } from './pool';

/** A blob's bodies in `blob_chunks.body`. */
const Body = { text: 0, analysis: 1 } as const;
type Body = (typeof Body)[keyof typeof Body];

/**
 * Bytes of one `blob_chunks` row: a trace's gzipped text may be gigabytes, past the 1 GiB one
 * `bytea` (and one protocol message) holds, so bodies are cut into rows of 4 MiB (the pieces
 * `textGzipPieces` yields).
 */
const BLOB_CHUNK_BYTES = BODY_PIECE_BYTES;
/** Chunk rows read at once while a body is read in pieces (16 MiB). */
const CHUNKS_PER_READ = 4;
/** Chunks sent in one INSERT (32 MiB): a large body is written in several statements, never one huge message. */
const CHUNKS_PER_STATEMENT = 8;
/** Document rows in one INSERT (17 parameters each, well under PostgreSQL's 65,535). */
const DOCUMENTS_PER_STATEMENT = 500;

async function writeBody(c: pg.PoolClient, sha256: string, body: Body, bytes: Uint8Array): Promise<void> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += BLOB_CHUNK_BYTES) chunks.push(bytea(bytes.subarray(at, at + BLOB_CHUNK_BYTES)));
  for (let first = 0; first < chunks.length; first += CHUNKS_PER_STATEMENT) {
    await c.query(
      'INSERT INTO blob_chunks (sha256, body, seq, data) SELECT $1, $2, $3::integer + n::integer - 1, d FROM unnest($4::bytea[]) WITH ORDINALITY AS x(d, n)',
      [sha256, body, first, chunks.slice(first, first + CHUNKS_PER_STATEMENT)],
    );
  }
}

async function readBody(db: Queryable, operation: string, sha256: string, body: Body): Promise<Buffer | undefined> {
  const rows = (await query<{ data: Buffer }>(db, operation, 'SELECT data FROM blob_chunks WHERE sha256 = $1 AND body = $2 ORDER BY seq', [sha256, body])).rows;
  return rows.length === 0 ? undefined : rows.length === 1 ? rows[0]!.data : Buffer.concat(rows.map((r) => r.data));
}

/** A body's length column in `blobs`. */
const BYTES_COLUMN: Readonly<Record<Body, string>> = { [Body.text]: 'gzip_bytes', [Body.analysis]: 'analysis_bytes' };

/** A body read `CHUNKS_PER_READ` chunk rows at a time as its pieces are consumed; undefined when its blob is not stored. */
async function bodyPieces(pool: pg.Pool, operation: string, sha256: string, body: Body): Promise<GzipPieces | undefined> {
  const blob = (await query<{ bytes: number }>(pool, operation, `SELECT ${BYTES_COLUMN[body]} AS bytes FROM blobs WHERE sha256 = $1`, [sha256])).rows[0];
  if (!blob) return undefined;
  const pieces = async function* () {
    for (let seq = 0; ; seq += CHUNKS_PER_READ) {
      const rows = (await query<{ data: Buffer }>(pool, operation,
        'SELECT data FROM blob_chunks WHERE sha256 = $1 AND body = $2 AND seq >= $3 AND seq < $4 ORDER BY seq', [sha256, body, seq, seq + CHUNKS_PER_READ])).rows;
      for (const r of rows) yield r.data;
      if (rows.length < CHUNKS_PER_READ) return;
    }
  };
  return { bytes: Number(blob.bytes), pieces: pieces() };
}

async function writeParts(c: pg.PoolClient, sha256: string, parts: Readonly<Record<AnalysisPart, Uint8Array>>): Promise<void> {
  for (const [part, gz] of Object.entries(parts)) {
    await c.query(
      `INSERT INTO analysis_parts (sha256, part, version, gzip) VALUES ($1, $2, $3, $4)
       ON CONFLICT (sha256, part) DO UPDATE SET version = EXCLUDED.version, gzip = EXCLUDED.gzip`,
      [sha256, part, ANALYSIS_PARTS_VERSION, bytea(gz)],
    );
  }
}

/**
 * Stores a blob unless that content is stored already (another instance may be storing it at
 * the same moment: the second INSERT waits for the first and then does nothing); its parts only
 * with a blob it stored, as the embedded store does.
 */
async function insertBlob(c: pg.PoolClient, sha256: string, bytes: number, blob: StoredBlob): Promise<void> {
  const inserted = await c.query('INSERT INTO blobs (sha256, bytes, gzip_bytes, analysis_bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING',
    [sha256, bytes, blob.gzip.length, blob.analysisGzip.length]);
  if (inserted.rowCount !== 1) return;
  await writeBody(c, sha256, Body.text, blob.gzip);
  await writeBody(c, sha256, Body.analysis, blob.analysisGzip);
  if (blob.parts) await writeParts(c, sha256, blob.parts);
}

async function insertDocuments(c: pg.PoolClient, roomId: string, docs: readonly { readonly meta: DocumentMeta; readonly path?: string | undefined }[]): Promise<void> {
  for (let first = 0; first < docs.length; first += DOCUMENTS_PER_STATEMENT) {
    const slice = docs.slice(first, first + DOCUMENTS_PER_STATEMENT);
    await c.query(`INSERT INTO documents (room_id, ${COLUMNS}) VALUES ${placeholders(slice.length, 17)}`, slice.flatMap(({ meta, path }) => [roomId, ...rowOf(meta, path)]));
  }
}

/** How many documents a room holds and their bytes, read through `c` (the pool, or a transaction's client). */
async function usageOf(c: Queryable, roomId: string): Promise<DocumentUsage> {
  const r = (await query<{ documents: number; bytes: number }>(c, 'documents.usage',
    'SELECT COUNT(*)::bigint AS documents, COALESCE(SUM(bytes), 0)::bigint AS bytes FROM documents WHERE room_id = $1', [roomId])).rows[0];
  return r ?? { documents: 0, bytes: 0 };
}

/**
 * The room's usage inside a transaction that may list documents, with the room's row locked
 * until it ends: a second instance checking the same room's quota waits for this one's documents,
 * so two uploads at once cannot both pass a check that only one fits.
 */
async function lockedUsage(c: pg.PoolClient, roomId: string): Promise<DocumentUsage> {
  await query(c, 'documents.lockRoom', 'SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE', [roomId]);
  return usageOf(c, roomId);
}

/**
 * Dumps in PostgreSQL (tables `blobs` with `blob_chunks`, `analysis_parts`, `documents`), with the
 * embedded `DocumentsStore`'s semantics: blobs stored once by sha256 across rooms, a document row
 * and its blob in one transaction, bodies kept and returned gzipped as they were given.
 */
export function postgresDocuments(pool: pg.Pool): DocumentBlobs {
  const one = async <R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[]): Promise<R | undefined> =>
    (await query<R>(pool, operation, text, values)).rows[0];
  return {
    usage: async (roomId) => usageOf(pool, roomId),
    hasBlob: async (sha256) => (await one('documents.hasBlob', 'SELECT 1 FROM blobs WHERE sha256 = $1', [sha256])) !== undefined,
    add: (roomId, meta, blob, check) => transaction(pool, 'documents.add', async (c) => {
      if (check) check(await lockedUsage(c, roomId));
      if (blob) await insertBlob(c, meta.sha256, meta.bytes, blob);
      await insertDocuments(c, roomId, [{ meta }]);
    }),
    putBlob: (sha256, bytes, blob) => transaction(pool, 'documents.putBlob', (c) => insertBlob(c, sha256, bytes, blob)),
    addAll: (roomId, docs, check) => transaction(pool, 'documents.addAll', async (c) => {
      if (check) check(await lockedUsage(c, roomId));
      await insertDocuments(c, roomId, docs);
    }),
    setPath: async (roomId, id, path, fileSha256) => {
      await query(pool, 'documents.setPath', 'UPDATE documents SET module_path = $1, file_sha256 = $2 WHERE room_id = $3 AND id = $4 AND module_group IS NULL', [path, fileSha256 ?? null, roomId, id]);
    },
    remove: async (roomId, id) => {
      await query(pool, 'documents.remove', 'DELETE FROM documents WHERE room_id = $1 AND id = $2', [roomId, id]);
    },
    hasFile: async (roomId, path, sha256) =>
      (await one('documents.hasFile', 'SELECT 1 FROM documents WHERE room_id = $1 AND module_path = $2 AND (sha256 = $3 OR file_sha256 = $3) LIMIT 1', [roomId, path, sha256])) !== undefined,
    roomHasBlob: async (roomId, sha256) =>
      (await one('documents.roomHasBlob', 'SELECT 1 FROM documents WHERE room_id = $1 AND sha256 = $2 LIMIT 1', [roomId, sha256])) !== undefined,
    moduleRefs: async (roomId) =>
      (await query<DocumentRow>(pool, 'documents.moduleRefs', `SELECT ${COLUMNS} FROM documents WHERE room_id = $1 AND module_group IS NOT NULL AND pass_index IS NULL`, [roomId]))
        .rows.map(moduleOf).filter((m) => m !== undefined),
    list: async (roomId) =>
      (await query<DocumentRow>(pool, 'documents.list', `SELECT ${COLUMNS} FROM documents WHERE room_id = $1 ORDER BY created_at, id COLLATE "C"`, [roomId])).rows.map(toMeta),
    get: async (roomId, id) => {
      const r = await one<DocumentRow>('documents.get', `SELECT ${COLUMNS} FROM documents WHERE room_id = $1 AND id = $2`, [roomId, id]);
      return r && toMeta(r);
    },
    textGzip: (sha256) => readBody(pool, 'documents.textGzip', sha256, Body.text),
    textGzipPieces: (sha256) => bodyPieces(pool, 'documents.textGzipPieces', sha256, Body.text),
    analysisGzip: (sha256) => readBody(pool, 'documents.analysisGzip', sha256, Body.analysis),
    analysisGzipPieces: (sha256) => bodyPieces(pool, 'documents.analysisGzipPieces', sha256, Body.analysis),
    analysisPartGzip: async (sha256, part) =>
      (await one<{ gzip: Buffer }>('documents.analysisPartGzip', 'SELECT gzip FROM analysis_parts WHERE sha256 = $1 AND part = $2 AND version = $3', [sha256, part, ANALYSIS_PARTS_VERSION]))?.gzip,
    putAnalysisParts: (sha256, parts) => transaction(pool, 'documents.putAnalysisParts', (c) => writeParts(c, sha256, parts)),
  };
}
