import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { Analyzer } from './analyzer';
import type { Config } from './config';
import { ApiError, ErrorCode } from './errors';
import type { CaptureService } from './jobs/service';
import { jobRoutes } from './jobs/wiring';
import type { Metrics } from './metrics';
import { annotationRoutes } from './routes/annotations';
import { configRoutes } from './routes/config';
import { documentRoutes } from './routes/documents';
import { exportRoutes } from './routes/export';
import { gateRoutes } from './routes/gate';
import { importRoutes } from './routes/imports';
import { opsRoutes } from './routes/ops';
import { roomRoutes } from './routes/rooms';
import { webRoutes } from './routes/web';
import { drillRoutes } from './teaching/drill-routes';
import type { DrillSignal } from './teaching/drill-signal';
import { labRoutes } from './teaching/lab/lab-routes';
import { historyRoutes } from './teaching/replay/history-routes';
import { traceRoutes } from './trace/routes';
import type { TraceReducers } from './trace/reducers';
import { apiNoStore, securityHeaders, webAppScriptHashes } from './security-headers';
import type { Store } from './store';
import type { DocumentBlobs, RoomDirectory, SharedStore, TraceBlocks } from './store/shared-store';
import type { StagedBlobs } from './store/staged-blobs';
import { StoreUnavailableError } from './store/store-errors';
import type { TextCache } from './store/text-cache';
import type { RoomBus } from './sync/bus/room-bus';
import { RoomCommitError } from './sync/room';
import type { Rooms } from './sync/rooms';

/** Where dumps and traces are read and written. */
export interface ContentStores {
  readonly documents: DocumentBlobs;
  readonly traces: TraceBlocks;
}

/** What the HTTP app is built from; `startServer` (or a test) builds these and injects them. */
export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly rooms: Rooms;
  readonly metrics: Metrics;
  readonly texts: TextCache;
  /**
   * Dumps (documents, blobs, analysis parts) and reduced traces as every instance sees them: the
   * shared store's in scaled mode, the embedded store's (answered at once) otherwise.
   */
  readonly content: ContentStores;
  readonly log: Logger;
  /** Analyzes dumps at ingest, large ones in a worker thread. */
  readonly analyzer: Analyzer;
  /** Reduces profiler traces at ingest, in worker threads; made per route set when absent. */
  readonly traceReducers?: TraceReducers;
  /** The capture job queue; its routes are mounted when present. */
  readonly jobs?: CaptureService;
  /**
   * Rooms and their role tokens as every instance sees them: the shared store's in scaled mode,
   * the embedded store's (answered at once) otherwise. Absent: the embedded store's.
   */
  readonly directory?: RoomDirectory;
  /** Scaled mode: the shared store and the room bus this instance uses; absent in embedded mode. */
  readonly scaled?: { readonly shared: SharedStore; readonly bus: RoomBus };
  /** Scaled mode: how drill answers reach the owner's event stream on every instance; absent, this process's streams only. */
  readonly drillSignal?: DrillSignal;
  /** Files staged for imports: the shared store's in scaled mode; absent, files in the data directory. */
  readonly staging?: StagedBlobs;
  /** What `/healthz` reports besides `ok` (scaled mode: whether PostgreSQL and Redis answer). */
  readonly health?: () => Promise<Record<string, unknown>>;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.badRequest,
  401: ErrorCode.unauthorized,
  403: ErrorCode.forbidden,
  404: ErrorCode.notFound,
  413: ErrorCode.tooLarge,
  429: ErrorCode.rateLimited,
};

/**
 * Builds the HTTP app: the JSON API, `/healthz`, `/metrics`, and the web app, every response with
 * the security headers. The only I/O is reading the built `index.html` for its inline script hashes.
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    // The path only: a query string may carry a token.
    deps.log.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
  });
  app.use(securityHeaders(webAppScriptHashes(deps.config.webDir)));
  app.use('/api/*', apiNoStore);
  app.route('/', opsRoutes(deps));
  app.route('/api/config', configRoutes(deps));
  app.route('/api', labRoutes(deps));
  app.route('/api/rooms', roomRoutes(deps));
  app.route('/api/rooms', documentRoutes(deps));
  app.route('/api/rooms', importRoutes(deps));
  app.route('/api/rooms', traceRoutes(deps));
  app.route('/api/rooms', annotationRoutes(deps));
  app.route('/api/rooms', exportRoutes(deps));
  app.route('/api/rooms', drillRoutes(deps));
  app.route('/api/rooms', historyRoutes(deps));
  if (deps.jobs) app.route('/', jobRoutes({ ...deps, jobs: deps.jobs }));
  if (deps.jobs) app.route('/api/rooms', gateRoutes({ ...deps, jobs: deps.jobs }));
  app.all('/api/*', () => {
    throw new ApiError(ErrorCode.notFound, 'no such endpoint');
  });
  app.route('/', webRoutes(deps));
  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
    // The shared store could not be reached: nothing of the request was stored.
    if (err instanceof StoreUnavailableError || (err instanceof RoomCommitError && err.cause instanceof StoreUnavailableError)) {
      deps.log.warn({ err, path: c.req.path }, 'store unavailable');
      return c.json({ error: { code: ErrorCode.storeUnavailable, message: 'the store could not be reached; nothing was stored' } }, 503);
    }
    if (err instanceof HTTPException) {
      const code = STATUS_CODES[err.status] ?? ErrorCode.internal;
      const message = err.status === 413 ? 'request body too large' : err.message || code;
      return c.json({ error: { code, message } }, err.status);
    }
    deps.log.error({ err, path: c.req.path }, 'unhandled error');
    return c.json({ error: { code: ErrorCode.internal, message: 'internal error' } }, 500);
  });
  return app;
}
