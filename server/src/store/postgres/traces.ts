import type pg from 'pg';
import { TRACE_PART_COLUMN } from '../../trace/store';
import { OVERVIEW_VERSION, TRACE_FORM_VERSION, type StoredBlock } from '../../trace/stored-form';
import type { TraceBlocks } from '../shared-store';
import { bytea, query, transaction } from './pool';

/** Gzipped bytes of blocks sent in one INSERT: a trace of thousands of blocks is written in statements of at most this much. */
const BLOCK_BYTES_PER_STATEMENT = 32 * 1024 * 1024;

async function insertBlocks(c: pg.PoolClient, sha256: string, blocks: readonly StoredBlock[]): Promise<void> {
  let first = 0;
  while (first < blocks.length) {
    let end = first;
    let bytes = 0;
    while (end < blocks.length && (end === first || bytes + blocks[end]!.gzip.length <= BLOCK_BYTES_PER_STATEMENT)) bytes += blocks[end++]!.gzip.length;
    const slice = blocks.slice(first, end);
    await c.query(
      `INSERT INTO trace_blocks (sha256, track, block, start_us, end_us, gzip)
       SELECT $1, * FROM unnest($2::integer[], $3::integer[], $4::double precision[], $5::double precision[], $6::bytea[])`,
      [sha256, slice.map((b) => b.track), slice.map((b) => b.block), slice.map((b) => b.startUs), slice.map((b) => b.endUs), slice.map((b) => bytea(b.gzip))],
    );
    first = end;
  }
}

async function upsertOverview(db: pg.Pool | pg.PoolClient, sha256: string, gzip: Uint8Array): Promise<void> {
  await db.query(
    'INSERT INTO trace_overviews (sha256, version, gzip) VALUES ($1, $2, $3) ON CONFLICT (sha256, version) DO UPDATE SET gzip = EXCLUDED.gzip',
    [sha256, OVERVIEW_VERSION, bytea(gzip)],
  );
}

/**
 * Reduced traces in PostgreSQL (tables `trace_reductions`, `trace_blocks`, `trace_overviews`), with
 * the embedded `TraceStore`'s semantics: a reduction replaces the one before it with all its
 * blocks in one transaction, and a window reads only the blocks whose span overlaps it.
 */
export function postgresTraces(pool: pg.Pool): TraceBlocks {
  return {
    has: async (sha256) =>
      (await query(pool, 'traces.has', 'SELECT 1 FROM trace_reductions WHERE sha256 = $1 AND version = $2', [sha256, TRACE_FORM_VERSION])).rowCount === 1,
    put: (sha256, t) => transaction(pool, 'traces.put', async (c) => {
      // The reduction's row first: it locks the trace, so that a second instance storing the same
      // trace at once waits here, then deletes the blocks the first committed and writes its own.
      await c.query(
        `INSERT INTO trace_reductions (sha256, version, summary_gzip, ops_gzip, strings_gzip) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (sha256) DO UPDATE SET version = EXCLUDED.version, summary_gzip = EXCLUDED.summary_gzip, ops_gzip = EXCLUDED.ops_gzip, strings_gzip = EXCLUDED.strings_gzip`,
        [sha256, TRACE_FORM_VERSION, bytea(t.summary), bytea(t.ops), bytea(t.strings)],
      );
      await c.query('DELETE FROM trace_blocks WHERE sha256 = $1', [sha256]);
      await insertBlocks(c, sha256, t.blocks);
      await upsertOverview(c, sha256, t.overview);
    }),
    overview: async (sha256) =>
      (await query<{ gzip: Buffer }>(pool, 'traces.overview', 'SELECT gzip FROM trace_overviews WHERE sha256 = $1 AND version = $2', [sha256, OVERVIEW_VERSION])).rows[0]?.gzip,
    putOverview: (sha256, gzip) => transaction(pool, 'traces.putOverview', (c) => upsertOverview(c, sha256, gzip)),
    part: async (sha256, part) =>
      (await query<{ gzip: Buffer }>(pool, 'traces.part', `SELECT ${TRACE_PART_COLUMN[part]} AS gzip FROM trace_reductions WHERE sha256 = $1 AND version = $2`, [sha256, TRACE_FORM_VERSION])).rows[0]?.gzip,
    blocks: async (sha256, track, fromUs, toUs) =>
      (await query<{ gzip: Buffer }>(pool, 'traces.blocks', 'SELECT gzip FROM trace_blocks WHERE sha256 = $1 AND track = $2 AND start_us <= $3 AND end_us >= $4 ORDER BY block',
        [sha256, track, toUs, fromUs])).rows.map((r) => r.gzip),
  };
}
