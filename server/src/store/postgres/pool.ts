import pg from 'pg';
import { StoreUnavailableError } from '../store-errors';

/** PostgreSQL's type id of `bigint`: parsed as a JS number (every id and time Seam stores is a safe integer). */
const INT8 = 20;

/**
 * Whether a driver error means PostgreSQL could not be reached or could not do the work (as
 * opposed to a statement it refused): socket errors and pg's own connection errors (no SQLSTATE),
 * SQLSTATE classes 08 (connection exception), 53 (insufficient resources: disk full, out of
 * memory), 57 (operator intervention: shutdown, crash, starting up) and 58 (system/I-O error).
 */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // A socket error (`EPIPE`, `ECONNRESET`: PostgreSQL went away mid-statement) has a code of five capitals too.
  if ((err as { syscall?: unknown }).syscall !== undefined) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57|58)/.test(code);
  return true;
}

/** Turns a failure into `StoreUnavailableError` when it is the backend's, else leaves it as it is. */
export function mapError(operation: string, err: unknown): unknown {
  return isUnavailable(err) && !(err instanceof StoreUnavailableError) ? new StoreUnavailableError(operation, err) : err;
}

/**
 * A connection pool to `url`. `bigint` columns arrive as numbers. A connection that breaks while
 * idle (PostgreSQL stopped) is dropped by the pool, which reports it as an `error` event; the
 * next query then gets a fresh connection or fails with `StoreUnavailableError`, which is where
 * the failure is reported, so the event itself needs no other handling.
 */
export function openPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5_000,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'] },
  });
  pool.on('error', () => undefined);
  return pool;
}

/** A connection, or a pool, to run statements on. */
export type Queryable = pg.Pool | pg.PoolClient;

/** Runs one statement; backend failures become `StoreUnavailableError`. */
export async function query<R extends pg.QueryResultRow>(db: Queryable, operation: string, text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>(text, values);
  } catch (err) {
    throw mapError(operation, err);
  }
}

/**
 * Runs `fn` in one transaction (`begin` says how it starts) on one pooled connection: committed
 * when `fn` resolves, rolled back when it throws. A connection that failed is destroyed rather
 * than returned to the pool. Backend failures, the COMMIT's included, become
 * `StoreUnavailableError`: the caller must then treat the work as not done.
 */
export async function transaction<T>(pool: pg.Pool, operation: string, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw mapError(operation, err);
  }
  let broken: Error | undefined;
  // A connection that breaks between two statements reports it as an event on the client (not
  // only as the next statement's failure); without a listener that would be an uncaught error.
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (isUnavailable(err)) broken = err as Error;
    else await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
    throw mapError(operation, err);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** Bytes as pg sends them as `bytea` (a Buffer over the same memory, no copy). */
export function bytea(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** Numbered placeholders for `rows` rows of `width` values from `$1`, for a multi-row VALUES: `($1, $2), ($3, $4)`. */
export function placeholders(rows: number, width: number): string {
  return Array.from({ length: rows }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
}
