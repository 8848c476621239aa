import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { detectKind } from '@seam/shared/ir';
import { DocumentKind, RoomKey, type DocumentMeta, type ModuleRef } from '@seam/shared/model';
import type { Logger } from 'pino';
import { AnalyzerBusy, analyzeGzipInline, type Analyzer } from './analyzer';
import { newId } from './auth/tokens';
import type { Config } from './config';
import { ApiError, ErrorCode } from './errors';
import type { ContentStores } from './app';
import { assertRoomDocumentQuota } from './room-quotas';
import { storeDocument } from './store-document';
import type { Store } from './store';
import type { StoredBlob } from './store/documents-store';
import type { TextCache } from './store/text-cache';
import type { Rooms } from './sync/rooms';
import { reduceTraceText } from './trace/ingest-trace';
import type { TraceReducers } from './trace/reducers';
import type { StoredTrace } from './trace/stored-form';

const gzipAsync = promisify(gzip);

export interface IngestDeps {
  readonly config: Pick<Config, 'limits'>;
  readonly store: Store;
  /** Where dumps and traces are stored (the shared store in scaled mode). */
  readonly content: ContentStores;
  readonly rooms: Rooms;
  readonly texts: TextCache;
  readonly log: Logger;
  /** Runs large analyses off the event loop; without it `analyze` runs inline. */
  readonly analyzer?: Analyzer;
  /** Reduces traces in worker threads; without it each trace gets reducers of its own. */
  readonly traceReducers?: TraceReducers;
}

/** What `ingestDocument` takes beside the text: the kind (else detected) and the dump's provenance and module group. */
export interface DocumentExtra {
  readonly kind?: DocumentKind;
  readonly addedBy?: string;
  readonly captureId?: string;
  readonly module?: ModuleRef;
}

/** A dump made ready to store: its metadata, its blob when that content is new, and its trace reduction when it is a trace. */
export interface PreparedDocument {
  readonly meta: DocumentMeta;
  readonly blob: StoredBlob | undefined;
  readonly trace: StoredTrace | undefined;
}

/**
 * Everything `ingestDocument` does but storing: hashes the text, indexes it once with `analyze`
 * (when that content is not stored yet) and gzips it off the event loop, reduces a trace, and
 * makes the metadata. Throws `quota_exceeded` when the room may not take the dump, and `busy`
 * when the analyzer's queue is full.
 */
export async function prepareDocument(deps: IngestDeps, roomId: string, title: string, text: string, extra: DocumentExtra = {}): Promise<PreparedDocument> {
  const data = Buffer.from(text, 'utf8');
  await assertRoomDocumentQuota(deps.content.documents, deps.config.limits, roomId, data.length);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const kind = extra.kind ?? detectKind(text);
  let blob: StoredBlob | undefined;
  if (!(await deps.content.documents.hasBlob(sha256))) {
    const started = performance.now();
    const forms = deps.analyzer ? deps.analyzer.analyzeGzip(text, kind) : analyzeGzipInline(text, kind);
    const [textGz, { analysis, views, keys }] = await Promise.all([gzipAsync(data), forms]).catch((err: unknown) => {
      throw err instanceof AnalyzerBusy ? new ApiError(ErrorCode.busy, err.message) : err;
    });
    const analyzeMs = performance.now() - started;
    blob = { gzip: textGz, analysisGzip: analysis, parts: { views, keys } };
    deps.log.info({ room: roomId, bytes: data.length, kind, analyzeMs: Math.round(analyzeMs) }, 'dump indexed');
  }
  // A trace (a capture's) is also reduced, as an uploaded one is; one that cannot be is stored without.
  const trace = kind === DocumentKind.trace && !(await deps.content.traces.has(sha256)) ? await reduceTraceText(deps, data) : undefined;
  const meta: DocumentMeta = {
    id: newId(), title, kind, bytes: data.length, sha256, createdAt: Date.now(),
    ...(extra.addedBy !== undefined ? { addedBy: extra.addedBy } : {}),
    ...(extra.captureId !== undefined ? { captureId: extra.captureId } : {}),
    ...(extra.module !== undefined ? { module: extra.module } : {}),
  };
  return { meta, blob, trace };
}

/**
 * Stores a dump in a room: the text is stored once by sha256 (gzip, compressed off the event
 * loop), indexed once with `analyze` (stored whole and in its views and keys parts), listed in the
 * room's documents once its blob and trace reduction are stored (`storeDocument`), and announced
 * in the room document's server-only `documents` map. Returns the new document's metadata. `extra`
 * sets the kind (else detected), for captures the runner as `addedBy` and the job as `captureId`,
 * and for a file of a dump folder its `module` group.
 * Throws `quota_exceeded` when the room may not take the dump (checked before indexing and again
 * before storing), and `busy` when the analyzer's queue is full.
 */
export async function ingestDocument(deps: IngestDeps, roomId: string, title: string, text: string, extra: DocumentExtra = {}): Promise<DocumentMeta> {
  const { meta, blob, trace } = await prepareDocument(deps, roomId, title, text, extra);
  await assertRoomDocumentQuota(deps.content.documents, deps.config.limits, roomId, meta.bytes);
  await storeDocument(deps.content, deps.config.limits, roomId, meta, blob, trace);
  deps.texts.put(meta.sha256, text);
  await (await deps.rooms.load(roomId)).transact((doc) => doc.getMap(RoomKey.documents).set(meta.id, { ...meta }));
  return meta;
}
