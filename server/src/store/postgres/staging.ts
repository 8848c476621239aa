import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { ApiError, ErrorCode } from '../../errors';
import { BODY_PIECE_BYTES } from '../shared-store';
import { checkStagedName, overStagingQuota, wrongStagedSha, type PutBound, type StagedBlob, type StagedBlobs, type StagingLimits } from '../staged-blobs';
import { bytea, query, transaction, type Queryable } from './pool';

/** Bytes of one `staged_chunks` row, as `blob_chunks` (4 MiB): the most a PUT holds in memory. */
const STAGED_CHUNK_BYTES = BODY_PIECE_BYTES;
/** Chunk rows read at once while a staged blob is read (16 MiB). */
const CHUNKS_PER_READ = 4;
/**
 * An upload that has not written a chunk for this long broke off (its instance died, or
 * PostgreSQL went away under it): it no longer counts against the room's quota and is swept.
 */
const STALE_UPLOAD_MS = 5 * 60_000;
/** How often, at most, an instance sweeps expired blobs and broken-off uploads. */
const SWEEP_MS = 60_000;
/** First key of the advisory locks that serialize a room's staging writes across instances. */
const STAGING_LOCK = 7_385_002;

/** Takes the room's staging lock for the rest of the transaction. */
const lockRoom = (c: pg.PoolClient, roomId: string) => c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [STAGING_LOCK, roomId]);

/**
 * Staged blobs in PostgreSQL (scaled mode, `StagedBlobs`), shared by every instance: a PUT through
 * one instance is read by an import committed through another. Each upload is a `staged_uploads`
 * row whose body is written in `staged_chunks` rows of 4 MiB as the request streams in; its
 * `sha256` is set, under the room's advisory lock, only once the whole body is written and
 * verified, so a blob is staged whole or not at all. The room's quota counts every live upload,
 * finished or still streaming, under the same lock on every instance; a blob expires
 * `stagedSeconds` after it was last staged. `now` is the clock (default `Date.now`).
 */
export function postgresStaging(pool: pg.Pool, limits: StagingLimits, now: () => number = Date.now): StagedBlobs {
  let lastSweep = 0;
  const liveSince = () => now() - limits.stagedSeconds * 1000;

  /** Removes expired blobs and broken-off uploads of every room (their chunks go with them), at most once a minute. */
  const sweep = async () => {
    const t = now();
    if (t - lastSweep < SWEEP_MS) return;
    lastSweep = t;
    await query(pool, 'staging.sweep', 'DELETE FROM staged_uploads WHERE (sha256 IS NOT NULL AND touched_at < $1) OR (sha256 IS NULL AND touched_at < $2)', [liveSince(), t - STALE_UPLOAD_MS]);
  };

  const live = async (db: Queryable, operation: string, roomId: string, sha256: string) =>
    (await query<{ id: string; bytes: number }>(db, operation, 'SELECT id, bytes FROM staged_uploads WHERE room_id = $1 AND sha256 = $2 AND touched_at >= $3', [roomId, sha256, liveSince()])).rows[0];

  /**
   * Writes one chunk of upload `id`, after checking under the room's lock that the room's live
   * uploads leave room for it; false (nothing written) when they do not. The refusal is thrown by
   * the caller: an error thrown inside `transaction` would read as the backend's.
   */
  const writeChunk = (roomId: string, id: string, seq: number, data: Buffer) => transaction(pool, 'staging.put', async (c) => {
    await lockRoom(c, roomId);
    const used = (await c.query<{ bytes: number }>(
      'SELECT COALESCE(SUM(bytes), 0)::bigint AS bytes FROM staged_uploads WHERE room_id = $1 AND ((sha256 IS NOT NULL AND touched_at >= $2) OR (sha256 IS NULL AND touched_at >= $3))',
      [roomId, liveSince(), now() - STALE_UPLOAD_MS],
    )).rows[0]!.bytes;
    if (used + data.length > limits.stagedBytes) return false;
    await c.query('INSERT INTO staged_chunks (upload_id, seq, data) VALUES ($1, $2, $3)', [id, seq, data]);
    await c.query('UPDATE staged_uploads SET bytes = bytes + $1, touched_at = $2 WHERE id = $3', [data.length, now(), id]);
    return true;
  });

  return {
    size: async (roomId, sha256) => {
      checkStagedName(roomId, sha256);
      return (await live(pool, 'staging.size', roomId, sha256))?.bytes;
    },

    read: (roomId, sha256) => {
      checkStagedName(roomId, sha256);
      return (async function* () {
        const upload = await live(pool, 'staging.read', roomId, sha256);
        if (!upload) throw new ApiError(ErrorCode.missingBlob, `${sha256} is no longer staged`);
        let read = 0;
        for (let seq = 0; ; seq += CHUNKS_PER_READ) {
          const rows = (await query<{ data: Buffer }>(pool, 'staging.read',
            'SELECT data FROM staged_chunks WHERE upload_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq', [upload.id, seq, seq + CHUNKS_PER_READ])).rows;
          for (const r of rows) {
            read += r.data.length;
            yield r.data;
          }
          if (rows.length < CHUNKS_PER_READ) break;
        }
        // Removed while read (its import committed through another instance, or it expired): never a body cut short.
        if (read !== upload.bytes) throw new ApiError(ErrorCode.missingBlob, `${sha256} was removed while it was read`);
      })();
    },

    put: async (roomId: string, body: AsyncIterable<Uint8Array>, bound: PutBound, expected?: string): Promise<StagedBlob> => {
      checkStagedName(roomId, expected);
      await sweep();
      const id = randomBytes(12).toString('hex');
      await query(pool, 'staging.put', 'INSERT INTO staged_uploads (id, room_id, bytes, touched_at) VALUES ($1, $2, 0, $3)', [id, roomId, now()]);
      const hash = createHash('sha256');
      let bytes = 0;
      let seq = 0;
      let held: Buffer[] = [];
      let heldBytes = 0;
      const flush = async () => {
        const data = Buffer.concat(held, heldBytes);
        held = [];
        heldBytes = 0;
        if (!(await writeChunk(roomId, id, seq++, data))) throw overStagingQuota(limits);
      };
      try {
        for await (const chunk of body) {
          bytes += chunk.length;
          if (bytes > bound.maxBytes) throw new ApiError(ErrorCode.tooLarge, bound.tooLarge);
          hash.update(chunk);
          let piece = bytea(chunk);
          while (heldBytes + piece.length >= STAGED_CHUNK_BYTES) {
            const take = STAGED_CHUNK_BYTES - heldBytes;
            held.push(piece.subarray(0, take));
            heldBytes += take;
            piece = piece.subarray(take);
            await flush();
          }
          if (piece.length > 0) {
            // Copied: the stream may reuse the memory of a chunk it has handed over.
            held.push(Buffer.from(piece));
            heldBytes += piece.length;
          }
        }
        if (heldBytes > 0) await flush();
        const sha256 = hash.digest('hex');
        if (expected !== undefined && sha256 !== expected) throw wrongStagedSha(sha256, expected);
        // The same content staged already (by another PUT, maybe on another instance) is kept and
        // renewed, and this copy dropped: an import may be reading the first one's chunks.
        await transaction(pool, 'staging.put', async (c) => {
          await lockRoom(c, roomId);
          const renewed = await c.query('UPDATE staged_uploads SET touched_at = $1 WHERE room_id = $2 AND sha256 = $3', [now(), roomId, sha256]);
          if (renewed.rowCount === 0) await c.query('UPDATE staged_uploads SET sha256 = $1, touched_at = $2 WHERE id = $3', [sha256, now(), id]);
          else await c.query('DELETE FROM staged_uploads WHERE id = $1', [id]);
        });
        return { sha256, bytes };
      } catch (err) {
        // When PostgreSQL is what failed, this fails too: the upload never got its sha256, so it is
        // staged as nothing, and the sweep takes its rows once it is stale.
        await query(pool, 'staging.put', 'DELETE FROM staged_uploads WHERE id = $1', [id]).catch(() => undefined);
        throw err;
      }
    },

    remove: async (roomId, sha256s) => {
      checkStagedName(roomId);
      const shas = [...new Set(sha256s)];
      if (shas.length > 0) await query(pool, 'staging.remove', 'DELETE FROM staged_uploads WHERE room_id = $1 AND sha256 = ANY($2::text[])', [roomId, shas]);
    },
  };
}
