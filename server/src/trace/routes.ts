import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { Hono, type Context } from 'hono';
import { ROLES, type DocumentMeta } from '@seam/shared/model';
import { decodeBlock, encodeWindowColumns, eventWindow, type TraceSummary } from '@seam/shared/trace';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { badRequest, notFound } from '../errors';
import { immutable, notModified } from '../routes/documents';
import { TraceOverviews } from './overview';
import { TRACE_FORM_VERSION } from './stored-form';
import type { TracePart } from './store';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Events a window holds by default, and at most (`?limit=`). */
const DEFAULT_WINDOW_EVENTS = 2000;
const MAX_WINDOW_EVENTS = 20_000;
/** Parsed string tables kept, by content: a timeline reads many windows of one trace. */
const STRING_TABLES = 4;
/** Windows in columns are bytes, not JSON. */
const COLUMNS_TYPE = 'application/octet-stream';

/**
 * The reduced trace of a document, read in pieces: `GET /api/rooms/:id/documents/:docId/trace/summary`
 * (tracks, time range, steps, totals), `…/trace/ops` (per-op aggregates, longest total first) and
 * `…/trace/events?track=&from=&to=&limit=` (the events overlapping a time window, of one track or
 * of each, downsampled past `limit`; `&format=columns` answers them in columns, `encodeWindowColumns`),
 * `…/trace/overview` (the whole trace's window of each track at `OVERVIEW_EVENTS`, in columns: what a
 * timeline draws first) and `…/trace/original` (the trace as uploaded, gzipped, as an attachment).
 * Any role of the room may read; every answer is content-addressed (private, immutable, ETag). 404 when the document is not a trace with a stored reduction.
 */
export function traceRoutes(deps: AppDeps): Hono {
  const { documents, traces } = deps.content;
  const app = new Hono();
  const strings = new Map<string, readonly string[]>();
  const overviews = new TraceOverviews(traces);

  const traceOf = async (c: Context): Promise<DocumentMeta> => {
    const roomId = c.req.param('id') ?? '';
    await authorize(c, deps, roomId, ROLES);
    const meta = await documents.get(roomId, c.req.param('docId') ?? '');
    if (!meta) throw notFound('no such document in this room');
    if (!(await traces.has(meta.sha256))) throw notFound('this document has no reduced trace');
    return meta;
  };
  const part = (name: TracePart) => async (c: Context) => {
    const meta = await traceOf(c);
    const tag = `${meta.sha256}.trace-${name}.${TRACE_FORM_VERSION}`;
    return notModified(c, tag) ?? immutable(c, tag, (await traces.part(meta.sha256, name))!, 'application/json');
  };
  const json = async <T>(gz: Buffer | undefined): Promise<T> => JSON.parse((await gunzipAsync(gz!)).toString('utf8')) as T;
  const stringsOf = async (sha256: string): Promise<readonly string[]> => {
    let table = strings.get(sha256);
    if (!table) {
      table = await json<string[]>(await traces.part(sha256, 'strings'));
      strings.set(sha256, table);
      if (strings.size > STRING_TABLES) strings.delete(strings.keys().next().value!);
    }
    return table;
  };

  // The original as uploaded (or captured), gzipped: what "Download for Perfetto" saves.
  // Read from the store in pieces as it is sent: an original may be gigabytes.
  app.get('/:id/documents/:docId/trace/original', async (c) => {
    const meta = await traceOf(c);
    const gz = await documents.textGzipPieces(meta.sha256);
    if (!gz) throw notFound('the original of this trace is not stored');
    const name = `${meta.title.replace(/\.gz$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'trace'}.gz`;
    c.header('Content-Disposition', `attachment; filename="${name}"`);
    c.header('Cache-Control', 'private, max-age=31536000, immutable');
    c.header('ETag', `"${meta.sha256}.original"`);
    c.header('Content-Type', 'application/gzip');
    c.header('Content-Length', String(gz.bytes));
    return c.body(Readable.toWeb(Readable.from(gz.pieces)) as ReadableStream<Uint8Array>);
  });
  app.get('/:id/documents/:docId/trace/summary', part('summary'));
  app.get('/:id/documents/:docId/trace/ops', part('ops'));
  app.get('/:id/documents/:docId/trace/overview', async (c) => {
    const meta = await traceOf(c);
    return notModified(c, overviews.tag(meta.sha256)) ?? immutable(c, overviews.tag(meta.sha256), await overviews.get(meta.sha256), COLUMNS_TYPE);
  });
  app.get('/:id/documents/:docId/trace/events', async (c) => {
    const meta = await traceOf(c);
    const format = c.req.query('format') ?? 'json';
    if (format !== 'json' && format !== 'columns') throw badRequest('?format= must be json or columns');
    const summary = await json<TraceSummary>(await traces.part(meta.sha256, 'summary'));
    const num = (name: string, fallback: number): number => {
      const raw = c.req.query(name);
      if (raw === undefined || raw === '') return fallback;
      const n = Number(raw);
      if (!Number.isFinite(n)) throw badRequest(`?${name}= must be a number`);
      return n;
    };
    const fromUs = num('from', summary.startUs);
    const toUs = num('to', summary.endUs);
    if (fromUs > toUs) throw badRequest('?from= must not be after ?to=');
    const limit = num('limit', DEFAULT_WINDOW_EVENTS);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WINDOW_EVENTS) throw badRequest(`?limit= must be an integer from 1 to ${MAX_WINDOW_EVENTS}`);
    const rawTrack = c.req.query('track');
    let tracks = summary.tracks.map((t) => t.id);
    if (rawTrack !== undefined && rawTrack !== '') {
      const track = Number(rawTrack);
      if (!Number.isInteger(track) || track < 0 || track >= summary.tracks.length) throw badRequest(`?track= must be a track id from 0 to ${summary.tracks.length - 1}`);
      tracks = [track];
    }
    const table = await stringsOf(meta.sha256);
    const windows = await Promise.all(tracks.map(async (track) => {
      const blocks = await Promise.all((await traces.blocks(meta.sha256, track, fromUs, toUs)).map(async (gz) => decodeBlock(await gunzipAsync(gz))));
      return eventWindow(track, blocks, table, fromUs, toUs, limit);
    }));
    const tag = `${meta.sha256}.trace-events.${TRACE_FORM_VERSION}.${tracks.length === 1 ? tracks[0] : 'all'}.${fromUs}.${toUs}.${limit}`;
    if (format === 'columns') return immutable(c, `${tag}.columns`, await gzipAsync(encodeWindowColumns(fromUs, toUs, windows)), COLUMNS_TYPE);
    return immutable(c, tag, await gzipAsync(JSON.stringify({ fromUs, toUs, windows })), 'application/json');
  });
  return app;
}
