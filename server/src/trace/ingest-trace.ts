import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { finished } from 'node:stream/promises';
import { constants, createGunzip, createGzip } from 'node:zlib';
import { DocumentKind, RoomKey, type DocumentMeta } from '@seam/shared/model';
import { TraceFormatError, TraceTooLarge, isGzip } from '@seam/shared/trace';
import { analyzeGzipInline } from '../analyzer';
import { newId } from '../auth/tokens';
import { ApiError, ErrorCode } from '../errors';
import type { IngestDeps } from '../ingest';
import { storeDocument } from '../store-document';
import { assertRoomDocumentQuota, checkDocumentQuota } from '../room-quotas';
import type { StoredBlob } from '../store/documents-store';
import { ByteBatch } from './byte-batch';
import { TraceReducers, TraceReducersBusy } from './reducers';
import type { StoredTrace } from './stored-form';

/** The reducers of `deps`, or new ones (the limit on concurrent reductions is then per call). */
export const reducersOf = (deps: IngestDeps): TraceReducers => deps.traceReducers ?? new TraceReducers(deps.log, deps.config.limits);

/** Pieces of a trace held in memory, as the reducers read them. */
async function* pieces(data: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += 1024 * 1024) yield data.subarray(i, i + 1024 * 1024);
}

/**
 * The stored reduction of a trace already in memory (a capture's, which the runner posts as text),
 * or undefined when it cannot be reduced (logged: the document is stored all the same).
 */
export async function reduceTraceText(deps: IngestDeps, data: Uint8Array): Promise<StoredTrace | undefined> {
  try {
    return await reducersOf(deps).reduce(pieces(data));
  } catch (err) {
    deps.log.warn({ err: traceApiError(err) }, 'trace stored without its reduction');
    return undefined;
  }
}

/** A reduction's errors as the API's: a trace that cannot be read is a 400, one past a limit a 413, no free worker a 503. */
function traceApiError(err: unknown): unknown {
  if (err instanceof TraceFormatError) return new ApiError(ErrorCode.badRequest, `not a readable trace: ${err.message}`);
  if (err instanceof TraceTooLarge) return new ApiError(ErrorCode.tooLarge, `the trace is too large: ${err.message}`);
  if (err instanceof TraceReducersBusy) return new ApiError(ErrorCode.busy, `the server is busy reducing traces: ${err.message}`);
  return err;
}

/** Bytes sent to the reducer at a time, at most (a bigger piece goes as it is). */
const BATCH_BYTES = 1024 * 1024;
/** How far the gzip of a raw upload may fall behind the reduction. */
const GZIP_BEHIND_BYTES = 8 * 1024 * 1024;

/**
 * The decompressed bytes of an upload, as they arrive, in batches of about a megabyte (each
 * message to the reducer, each hash update and each write to zlib has a cost of its own):
 * gunzipped on the thread pool when the body is gzip (its first bytes say), hashed and counted
 * (past `traceBytes`, compressed or not, the upload is refused). The original, gzipped, is kept
 * through `keep` for "Download for Perfetto": the body as sent when it is gzip, else gzipped here.
 */
async function* decompressed(
  body: AsyncIterable<Uint8Array>, maxBytes: number, hash: ReturnType<typeof createHash>, count: { bytes: number }, keep: Uint8Array[], room: { readonly left: number; readonly refuse: (bytes: number) => void },
): AsyncGenerator<Uint8Array> {
  const it = body[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  let sent = 0;
  const tooLarge = () => new ApiError(ErrorCode.tooLarge, `a trace may be at most ${maxBytes} bytes (SEAM_TRACE_BYTES)`);
  const gzipped = isGzip(first.value);
  const raw = async function* (): AsyncGenerator<Uint8Array> {
    for (let next: IteratorResult<Uint8Array> = first; !next.done; next = await it.next()) {
      sent += next.value.length;
      if (sent > maxBytes) throw tooLarge();
      if (gzipped) keep.push(next.value);
      yield next.value;
    }
  };
  // `pipeline` destroys every stream with the first error, so reading `plain` throws it. A raw body is read as it comes.
  const plain: Readable | AsyncGenerator<Uint8Array> = gzipped ? pipeline(Readable.from(raw()), createGunzip({ chunkSize: 256 * 1024 }), () => undefined) : raw();
  // The fastest level: it runs beside the reduction, and a trace's JSON compresses well at any.
  const gzip = gzipped ? undefined : createGzip({ level: constants.Z_BEST_SPEED, chunkSize: 1024 * 1024 });
  gzip?.on('data', (c: Buffer) => keep.push(c));
  const batch = new ByteBatch(BATCH_BYTES);
  // zlib may fall a few batches behind (it runs on the thread pool meanwhile); past that the upload waits for it.
  const done = async (bytes: Uint8Array): Promise<Uint8Array> => {
    hash.update(bytes);
    if (gzip) {
      gzip.write(bytes);
      if (gzip.writableLength > GZIP_BEHIND_BYTES) await new Promise((resolve) => gzip.once('drain', resolve));
    }
    return bytes;
  };
  let complete = false;
  try {
    for await (const chunk of plain as AsyncIterable<Uint8Array>) {
      count.bytes += chunk.length;
      if (count.bytes > maxBytes) throw tooLarge();
      // A trace past what the room has left is refused as soon as it passes, not once reduced.
      if (count.bytes > room.left) room.refuse(count.bytes);
      if (batch.wouldOverflow(chunk.length)) yield await done(batch.take()!);
      if (batch.isWhole(chunk)) yield await done(chunk);
      else batch.add(chunk);
    }
    const last = batch.take();
    if (last) yield await done(last);
    if (gzip) {
      gzip.end();
      await finished(gzip);
    }
    complete = true;
  } catch (err) {
    gzip?.destroy();
    if ((err as { code?: string }).code?.startsWith('Z_')) throw new TraceFormatError(`the gzip stream is broken: ${(err as Error).message}`);
    throw err;
  } finally {
    if (plain instanceof Readable) plain.destroy();
    else await plain.return(undefined);
    // A refused trace's remaining body is read (up to the limit) and dropped, so the refusal
    // reaches the client on a connection it can keep using.
    if (!complete) {
      for (let next = await it.next(); !next.done && sent <= maxBytes; next = await it.next()) sent += next.value.length;
    }
  }
}

/**
 * Stores a profiler trace in a room from a stream of its bytes (Chrome/Perfetto JSON or XSpace,
 * gzipped or not): reduced once, in a worker, as it streams (`TraceReducers`), then stored (its
 * reduction first) as a document of kind `trace` (the original, gzipped, as its blob) with its
 * reduction, and announced in the room. A trace that cannot be read, or is too large, is refused
 * by name (400, 413) and nothing is stored.
 */
export async function ingestTrace(
  deps: IngestDeps,
  roomId: string,
  title: string,
  body: AsyncIterable<Uint8Array>,
  extra: { readonly addedBy?: string; readonly captureId?: string } = {},
): Promise<DocumentMeta> {
  const used = await deps.content.documents.usage(roomId);
  checkDocumentQuota(used, deps.config.limits, 0);
  const room = {
    left: deps.config.limits.roomDocumentBytes - used.bytes,
    refuse: (bytes: number) => checkDocumentQuota(used, deps.config.limits, bytes),
  };
  const hash = createHash('sha256');
  const count = { bytes: 0 };
  const keep: Uint8Array[] = [];
  const started = performance.now();
  let stored: StoredTrace;
  try {
    stored = await reducersOf(deps).reduce(decompressed(body, deps.config.limits.traceBytes, hash, count, keep, room));
  } catch (err) {
    throw traceApiError(err);
  }
  const sha256 = hash.digest('hex');
  deps.log.info({ room: roomId, bytes: count.bytes, ms: Math.round(performance.now() - started) }, 'trace reduced');
  const original = Buffer.concat(keep);
  // The pieces go before the store writes, so the original is held once.
  keep.length = 0;
  return storeTrace(deps, roomId, title, { sha256, bytes: count.bytes, original, stored }, extra);
}

/** Stores a reduced trace (`storeDocument`: its blob, its reduction, then the room's document); announces it. */
async function storeTrace(
  deps: IngestDeps,
  roomId: string,
  title: string,
  t: { readonly sha256: string; readonly bytes: number; readonly original: Uint8Array; readonly stored: StoredTrace },
  extra: { readonly addedBy?: string; readonly captureId?: string },
): Promise<DocumentMeta> {
  let blob: StoredBlob | undefined;
  if (!(await deps.content.documents.hasBlob(t.sha256))) {
    // The reduced form is the trace's index; the text analysis of a trace is empty.
    const { analysis, views, keys } = await analyzeGzipInline('', DocumentKind.trace);
    blob = { gzip: t.original, analysisGzip: analysis, parts: { views, keys } };
  }
  const meta: DocumentMeta = {
    id: newId(), title, kind: DocumentKind.trace, bytes: t.bytes, sha256: t.sha256, createdAt: Date.now(),
    ...(extra.addedBy !== undefined ? { addedBy: extra.addedBy } : {}),
    ...(extra.captureId !== undefined ? { captureId: extra.captureId } : {}),
  };
  await assertRoomDocumentQuota(deps.content.documents, deps.config.limits, roomId, t.bytes);
  await storeDocument(deps.content, deps.config.limits, roomId, meta, blob, t.stored);
  await (await deps.rooms.load(roomId)).transact((doc) => doc.getMap(RoomKey.documents).set(meta.id, { ...meta }));
  return meta;
}
