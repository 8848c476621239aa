import { Hono, type Context } from 'hono';
import { gunzipSync } from 'node:zlib';
import { CreateDocumentBody, MAX_TITLE, ROLES } from '@seam/shared/model';
import type { AppDeps } from '../app';
import { requireRole } from '../auth/require';
import { badRequest, notFound } from '../errors';
import { ingestDocument } from '../ingest';
import { limitBody, readJson } from './validate';

const WRITERS = ['owner', 'annotator'] as const;

/** Serves one stored gzip body with content-addressed caching: ETag = sha256, immutable, 304 on match. */
function immutable(c: Context, sha256: string, gz: Buffer, contentType: string): Response {
  const etag = `"${sha256}"`;
  c.header('ETag', etag);
  c.header('Cache-Control', 'public, max-age=31536000, immutable');
  c.header('Vary', 'Accept-Encoding');
  const match = c.req.header('if-none-match');
  if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return c.body(null, 304);
  c.header('Content-Type', contentType);
  if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    c.header('Content-Encoding', 'gzip');
    return c.body(new Uint8Array(gz));
  }
  return c.body(new Uint8Array(gunzipSync(gz)));
}

/**
 * `POST /api/rooms/:id/documents` (JSON `{title, text}` or `text/plain` with `?title=`),
 * `GET /api/rooms/:id/documents/:docId/text` and `…/analysis`.
 */
export function documentRoutes(deps: AppDeps): Hono {
  const { store } = deps;
  const app = new Hono();
  const limit = limitBody(deps.config.limits.documentBytes, `a dump may be at most ${deps.config.limits.documentBytes} bytes`);

  app.post('/:id/documents', (c, next) => {
    requireRole(c, store, c.req.param('id'), WRITERS);
    return next();
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

  /** Serves a stored body of the request's document (any role), picked by its content hash. */
  const serveStored = (c: Context, pick: (sha256: string) => Buffer | undefined, contentType: string): Response => {
    const roomId = c.req.param('id') ?? '';
    requireRole(c, store, roomId, ROLES);
    const meta = store.documents.get(roomId, c.req.param('docId') ?? '');
    const gz = meta && pick(meta.sha256);
    if (!meta || !gz) throw notFound('no such document in this room');
    return immutable(c, meta.sha256, gz, contentType);
  };
  app.get('/:id/documents/:docId/text', (c) => serveStored(c, (sha) => store.documents.textGzip(sha), 'text/plain; charset=utf-8'));
  app.get('/:id/documents/:docId/analysis', (c) => serveStored(c, (sha) => store.documents.analysisGzip(sha), 'application/json'));

  return app;
}
