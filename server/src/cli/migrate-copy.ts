import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { postgresDocuments } from '../store/postgres/documents';
import { migrate } from '../store/postgres/migrations';
import { openPool, placeholders, transaction } from '../store/postgres/pool';

/**
 * One table copied row for row: the same name and columns in `seam.db` and in PostgreSQL. `rows`
 * bounds a batch (one INSERT, one PostgreSQL transaction); tables of large values take few at once.
 * `after` runs in the batch's transaction, with the rows it read.
 */
interface TableCopy {
  readonly table: string;
  readonly columns: readonly string[];
  readonly rows: number;
  /** The table's key is an identity column: its ids are copied as they are (`OVERRIDING SYSTEM VALUE`). */
  readonly identity?: string;
  readonly after?: (c: pg.PoolClient, rows: readonly Record<string, unknown>[]) => Promise<void>;
}

/** Rows whose values are small (ids, times, JSON): this many per INSERT, under PostgreSQL's 65,535 parameters for 23 columns. */
const SMALL_ROWS = 500;
/** Rows of tables whose values may be megabytes (trace blocks, snapshots, analysis parts, history bases). */
const LARGE_ROWS = 8;

/**
 * Keeps each room's head (`room_heads.last_id`, where the next update id of the room starts) at or
 * past every id copied into its log or snapshot, in the copying batch's transaction: an instance
 * appending to a copied room numbers its updates after them.
 */
async function raiseHeads(c: pg.PoolClient, rows: readonly Record<string, unknown>[], idColumn: string): Promise<void> {
  const heads = new Map<string, number>();
  for (const r of rows) heads.set(r.room_id as string, Math.max(heads.get(r.room_id as string) ?? 0, r[idColumn] as number));
  await c.query(
    `INSERT INTO room_heads (room_id, last_id) SELECT * FROM unnest($1::text[], $2::bigint[])
     ON CONFLICT (room_id) DO UPDATE SET last_id = GREATEST(room_heads.last_id, EXCLUDED.last_id)`,
    [[...heads.keys()], [...heads.values()]],
  );
}

/**
 * Every table with a PostgreSQL form but `blobs` (copied through the documents store, which cuts
 * bodies into chunks), in an order that meets every foreign key. Ids keep their values: an
 * embedded update id increases within its room, as PostgreSQL's per-room ids do, and snapshots
 * and history cursors name them.
 */
const TABLES: readonly TableCopy[] = [
  { table: 'rooms', columns: ['id', 'title', 'created_at'], rows: SMALL_ROWS },
  { table: 'tokens', columns: ['room_id', 'role', 'hash'], rows: SMALL_ROWS },
  { table: 'analysis_parts', columns: ['sha256', 'part', 'version', 'gzip'], rows: LARGE_ROWS },
  {
    table: 'documents',
    columns: ['id', 'room_id', 'sha256', 'title', 'kind', 'bytes', 'created_at', 'added_by', 'capture_id', 'module_group', 'module_name', 'module_number',
      'module_path', 'pass_index', 'pass_pipeline', 'pass_name', 'pass_when', 'file_sha256'],
    rows: SMALL_ROWS,
  },
  { table: 'trace_reductions', columns: ['sha256', 'version', 'summary_gzip', 'ops_gzip', 'strings_gzip'], rows: LARGE_ROWS },
  { table: 'trace_blocks', columns: ['sha256', 'track', 'block', 'start_us', 'end_us', 'gzip'], rows: LARGE_ROWS },
  { table: 'trace_overviews', columns: ['sha256', 'version', 'gzip'], rows: LARGE_ROWS },
  { table: 'room_snapshots', columns: ['room_id', 'data', 'through_id'], rows: LARGE_ROWS, after: (c, rows) => raiseHeads(c, rows, 'through_id') },
  { table: 'room_updates', columns: ['room_id', 'id', 'data'], rows: SMALL_ROWS, after: (c, rows) => raiseHeads(c, rows, 'id') },
  { table: 'room_history_base', columns: ['room_id', 'data', 'starts_at', 'last_at', 'bytes', 'dropped'], rows: LARGE_ROWS },
  { table: 'room_history', columns: ['id', 'room_id', 'at', 'kind', 'data'], rows: SMALL_ROWS, identity: 'id' },
  {
    table: 'capture_jobs',
    columns: ['id', 'room_id', 'request', 'requested_by', 'wanted_runner', 'status', 'attempt', 'max_attempts', 'runner_id', 'runner_name', 'lease_expires_at',
      'requeued_at', 'phase', 'result_attempt', 'documents', 'analyses', 'provenance', 'error', 'version_of', 'version', 'carried', 'created_at', 'updated_at'],
    rows: SMALL_ROWS,
  },
  { table: 'invitations', columns: ['id', 'hash', 'note', 'uses', 'uses_left', 'created_at', 'expires_at', 'revoked_at'], rows: SMALL_ROWS },
  { table: 'drills', columns: ['id', 'room_id', 'doc_id', 'items', 'created_at', 'revealed_at'], rows: SMALL_ROWS },
  { table: 'drill_answers', columns: ['drill_id', 'person', 'name', 'question_id', 'answer', 'correct', 'answered_at', 'first_at'], rows: SMALL_ROWS },
  { table: 'runner_tokens', columns: ['id', 'name', 'hash', 'created_at', 'revoked_at', 'server_minted'], rows: SMALL_ROWS },
];

/** The tables `seam migrate` copies, in order. */
export const MIGRATED_TABLES: readonly string[] = ['blobs', ...TABLES.map((t) => t.table)];

/** How far a copy is: rows of `table` read so far, of `total`. */
export interface CopyProgress {
  readonly table: string;
  readonly done: number;
  readonly total: number;
}

/** What the copy did to one table: rows in `seam.db`, and how many of them it added (the others were there already). */
export interface TableSummary {
  readonly table: string;
  readonly rows: number;
  readonly added: number;
}

/**
 * The data directory cannot be copied: it holds no `seam.db`, the file is not a SQLite database,
 * or its tables lack columns of the current schema (a data directory of an older Seam, which the
 * current server brings forward when it opens it once).
 */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

const BLOB_COLUMNS = ['sha256', 'bytes', 'gzip', 'analysis_gzip'];

/** Throws `DataDirError` unless `seam.db` has `blobs` and `rooms` and every copied table it has holds every copied column. */
function checkSchema(db: Database.Database): void {
  const columnsOf = (table: string) => new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name));
  for (const required of ['blobs', 'rooms']) {
    if (columnsOf(required).size === 0) throw new DataDirError(`seam.db has no ${required} table: not a Seam data directory`);
  }
  for (const { table, columns } of [{ table: 'blobs', columns: BLOB_COLUMNS }, ...TABLES]) {
    const have = columnsOf(table);
    const missing = columns.filter((c) => !have.has(c));
    if (have.size > 0 && missing.length > 0) {
      throw new DataDirError(`seam.db's ${table} lacks ${missing.join(', ')}: it is from an older Seam; start the current server on it once (which brings it forward), stop it, and migrate again`);
    }
  }
}

async function copyTable(db: Database.Database, pool: pg.Pool, spec: TableCopy, progress: (p: CopyProgress) => void): Promise<TableSummary> {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(spec.table) !== undefined;
  if (!exists) return { table: spec.table, rows: 0, added: 0 };
  const total = (db.prepare(`SELECT count(*) AS n FROM ${spec.table}`).get() as { n: number }).n;
  const page = db.prepare<[number, number], Record<string, unknown> & { rid: number }>(
    `SELECT rowid AS rid, ${spec.columns.join(', ')} FROM ${spec.table} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const overriding = spec.identity ? ' OVERRIDING SYSTEM VALUE' : '';
  let after = 0;
  let done = 0;
  let added = 0;
  progress({ table: spec.table, done, total });
  for (;;) {
    const rows = page.all(after, spec.rows);
    if (rows.length === 0) break;
    added += await transaction(pool, `migrate ${spec.table}`, async (c) => {
      const inserted = await c.query(`INSERT INTO ${spec.table} (${spec.columns.join(', ')})${overriding} VALUES ${placeholders(rows.length, spec.columns.length)} ON CONFLICT DO NOTHING`,
        rows.flatMap((r) => spec.columns.map((col) => r[col])));
      await spec.after?.(c, rows);
      return inserted.rowCount ?? 0;
    });
    after = rows.at(-1)!.rid;
    done += rows.length;
    progress({ table: spec.table, done, total });
  }
  if (spec.identity) {
    // The next id PostgreSQL gives comes after every copied one.
    await transaction(pool, `migrate ${spec.table}`, (c) =>
      c.query(`SELECT setval(pg_get_serial_sequence('${spec.table}', '${spec.identity}'), GREATEST((SELECT max(${spec.identity}) FROM ${spec.table}), 1))`));
  }
  return { table: spec.table, rows: total, added };
}

/** Copies the blobs one at a time through the documents store (which stores each once, its bodies in chunks). */
async function copyBlobs(db: Database.Database, pool: pg.Pool, progress: (p: CopyProgress) => void): Promise<TableSummary> {
  const documents = postgresDocuments(pool);
  const total = (db.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n;
  const next = db.prepare<[number], { rid: number; sha256: string; bytes: number; gzip: Buffer; analysis_gzip: Buffer }>(
    `SELECT rowid AS rid, ${BLOB_COLUMNS.join(', ')} FROM blobs WHERE rowid > ? ORDER BY rowid LIMIT 1`,
  );
  let after = 0;
  let done = 0;
  let added = 0;
  progress({ table: 'blobs', done, total });
  for (let r = next.get(after); r; r = next.get(after)) {
    if (!(await documents.hasBlob(r.sha256))) {
      await documents.putBlob(r.sha256, r.bytes, { gzip: r.gzip, analysisGzip: r.analysis_gzip });
      added += 1;
    }
    after = r.rid;
    progress({ table: 'blobs', done: ++done, total });
  }
  return { table: 'blobs', rows: total, added };
}

/**
 * Copies the embedded store in `dataDir` (`seam.db`) into the PostgreSQL database at `url`, every
 * table that has a PostgreSQL form (`MIGRATED_TABLES`), after bringing its schema up to date.
 * Idempotent: a row already there (same key) is left as it is, so a copy that broke off is
 * finished by running it again, and running it twice adds nothing. Reads one snapshot of
 * `seam.db` (stop the server first: what it writes during the copy is not copied). Throws
 * `DataDirError`, before writing anything, when `seam.db` is missing, unreadable or of an older
 * schema, and `StoreUnavailableError` when PostgreSQL cannot be reached or refuses a batch (the
 * batches before it stay copied).
 */
export async function copyDataDir(dataDir: string, url: string, progress: (p: CopyProgress) => void = () => undefined): Promise<TableSummary[]> {
  const file = join(dataDir, 'seam.db');
  if (!existsSync(file)) throw new DataDirError(`no seam.db in ${dataDir}`);
  let opened: Database.Database | undefined;
  try {
    opened = new Database(file, { readonly: true, fileMustExist: true });
    checkSchema(opened);
  } catch (err) {
    opened?.close();
    throw err instanceof Database.SqliteError ? new DataDirError(`${file} cannot be read as a Seam database: ${err.message}`) : err;
  }
  const db = opened;
  const pool = openPool(url, 2);
  try {
    await migrate(pool);
    // One read transaction: every table is read as of the same moment.
    db.exec('BEGIN');
    const summary = [await copyBlobs(db, pool, progress)];
    for (const spec of TABLES) summary.push(await copyTable(db, pool, spec, progress));
    db.exec('COMMIT');
    return summary;
  } finally {
    await pool.end();
    db.close();
  }
}
