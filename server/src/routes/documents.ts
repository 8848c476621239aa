import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Hono, type Context } from 'hono';
import { ANALYSIS_PARTS_VERSION, AnalysisPart } from '@seam/shared/ir';
import { CreateDocumentBody, MAX_TITLE, ROLES } from '@seam/shared/model';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { badRequest, notFound } from '../errors';
import { gunzipStream } from '../gunzip';
import { ingestDocument } from '../ingest';
import { assertUnlocked } from '../room-lock';
import type { GzipPieces } from '../store/shared-store';
import { StoredParts } from '../stored-parts';
import { ingestTrace, reducersOf } from '../trace/ingest-trace';
import { limitBody, readJson } from './validate';

const WRITERS = ['owner', 'annotator'] as const;

/**
 * Sets the caching headers of a content-addressed answer (ETag = `tag`: the sha256, or of a part;
 * immutable) and answers 304 when the request already holds it, before anything is read.
 * Private: reading it takes a room token, so no shared cache may keep it.
 */
export function notModified(c: Context, tag: string): Response | undefined {
  const etag = `"${tag}"`;
  c.header('ETag', etag);
  c.header('Cache-Control', 'private, max-age=31536000, immutable');
  c.header('Vary', 'Authorization, Accept-Encoding');
  const match = c.req.header('if-none-match');
  if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return c.body(null, 304);
  return undefined;
}

/** Sends a stored gzip body, whole or in pieces: as it is when the client accepts gzip, else decompressed as the client reads. */
function sendGzip(c: Context, gz: Uint8Array | GzipPieces, contentType: string): Response {
  c.header('Content-Type', contentType);
  if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    c.header('Content-Encoding', 'gzip');
    if (gz instanceof Uint8Array) return c.body(new Uint8Array(gz));
    c.header('Content-Length', String(gz.bytes));
    return c.body(Readable.toWeb(Readable.from(gz.pieces)) as ReadableStream<Uint8Array>);
  }
  // Decompressed as the client reads, off the event loop: a large dump must not stall other rooms.
  if (gz instanceof Uint8Array) return c.body(gunzipStream(gz));
  const unzip = pipeline(Readable.from(gz.pieces), createGunzip({ chunkSize: 256 * 1024 }), () => undefined);
  return c.body(Readable.toWeb(unzip) as ReadableStream<Uint8Array>);
}

/** Serves one stored gzip body with content-addressed caching (`notModified`). */
export function immutable(c: Context, tag: string, gz: Uint8Array, contentType: string): Response {
  return notModified(c, tag) ?? sendGzip(c, gz, contentType);
}

/** Content types of a trace upload (Chrome/Perfetto JSON or XSpace, gzipped or not), sent as the raw body with `?title=`. */
const TRACE_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-protobuf'];

/**
 * `POST /api/rooms/:id/documents` (JSON `{title, text}`, `text/plain` with `?title=`, or a trace as
 * a raw body of one of `TRACE_TYPES` with `?title=`, streamed and reduced as it arrives),
 * `GET /api/rooms/:id/documents/:docId/text`, `…/analysis` and `…/analysis?part=views|keys`.
 */
export function documentRoutes(deps: AppDeps): Hono {
  const { documents } = deps.content;
  const parts = new StoredParts(documents, deps.analyzer);
  const app = new Hono();
  const limit = limitBody(deps.config.limits.documentBytes, `a dump may be at most ${deps.config.limits.documentBytes} bytes`);
  const traceReducers = reducersOf(deps);

  app.post('/:id/documents', async (c, next) => {
    const roomId = c.req.param('id');
    const { role } = await authorize(c, deps, roomId, WRITERS);
    await deps.rooms.load(roomId);
    assertUnlocked(deps.rooms, roomId, role);
    return next();
  }, async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
    if (!TRACE_TYPES.includes(type)) return next();
    const title = (c.req.query('title') ?? '').trim();
    if (title.length === 0 || title.length > MAX_TITLE) throw badRequest(`?title= is required, 1–${MAX_TITLE} characters`);
    const body = c.req.raw.body;
    if (!body) throw badRequest('the trace is empty');
    const meta = await ingestTrace({ ...deps, traceReducers }, c.req.param('id'), title, body);
    return c.json({ id: meta.id, title: meta.title, kind: meta.kind, bytes: meta.bytes, sha256: meta.sha256, createdAt: meta.createdAt }, 201);
  }, limit, async (c) => {
    const roomId = c.req.param('id');
    const type = c.req.header('content-type') ?? '';
    let title: string;
    let text: string;
    if (type.startsWith('application/json')) {
      const parsed = CreateDocumentBody.safeParse(await readJson(c, 'the body is not valid JSON'));
      if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      ({ title, text } = parsed.data);
    } else if (type.startsWith('text/plain') || type === '') {
      title = (c.req.query('title') ?? '').trim();
      if (title.length === 0 || title.length > MAX_TITLE) throw badRequest(`?title= is required, 1–${MAX_TITLE} characters`);
      text = await c.req.text();
    } else {
      throw badRequest('send JSON {title, text} or a text/plain body with ?title=');
    }
    const meta = await ingestDocument(deps, roomId, title, text);
    return c.json({ id: meta.id, title: meta.title, kind: meta.kind, bytes: meta.bytes, sha256: meta.sha256, createdAt: meta.createdAt }, 201);
  });

  /** The request's document (any role may read it); 404 when the room has no such document. */
  const documentOf = async (c: Context) => {
    const roomId = c.req.param('id') ?? '';
    await authorize(c, deps, roomId, ROLES);
    const meta = await documents.get(roomId, c.req.param('docId') ?? '');
    if (!meta) throw notFound('no such document in this room');
    return meta;
  };
  const NO_ANALYSIS = 'no analysis is stored for this document';
  // The text is read from the store in pieces as it is sent: a large dump is never held whole.
  app.get('/:id/documents/:docId/text', async (c) => {
    const meta = await documentOf(c);
    const cached = notModified(c, meta.sha256);
    if (cached) return cached;
    const body = await documents.textGzipPieces(meta.sha256);
    if (!body) throw notFound('no such document in this room');
    return sendGzip(c, body, 'text/plain; charset=utf-8');
  });
  // `?part=views` (outline, dots, fusions, spills, values in columns) and `?part=keys` (cross-layer
  // keys) are the whole analysis in two smaller bodies: the views need only the first.
  app.get('/:id/documents/:docId/analysis', async (c) => {
    const part = c.req.query('part');
    const meta = await documentOf(c);
    if (part === undefined) {
      const cached = notModified(c, meta.sha256);
      if (cached) return cached;
      const body = await documents.analysisGzipPieces(meta.sha256);
      if (!body) throw notFound(NO_ANALYSIS);
      return sendGzip(c, body, 'application/json');
    }
    if (part !== AnalysisPart.views && part !== AnalysisPart.keys) throw badRequest(`?part= must be ${AnalysisPart.views} or ${AnalysisPart.keys}`);
    const gz = await parts.get(meta.sha256, part);
    if (!gz) throw notFound(NO_ANALYSIS);
    return immutable(c, `${meta.sha256}.${part}.${ANALYSIS_PARTS_VERSION}`, gz, 'application/json');
  });

  return app;
}
