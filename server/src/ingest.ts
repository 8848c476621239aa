import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { analyze, detectKind } from '@seam/shared/ir';
import { RoomKey, type DocumentKind, type DocumentMeta } from '@seam/shared/model';
import type { Logger } from 'pino';
import type { Analyzer } from './analyzer';
import { newId } from './auth/tokens';
import type { Store } from './store';
import type { TextCache } from './store/text-cache';
import type { Rooms } from './sync/rooms';

const gzipAsync = promisify(gzip);

export interface IngestDeps {
  readonly store: Store;
  readonly rooms: Rooms;
  readonly texts: TextCache;
  readonly log: Logger;
  /** Runs large analyses off the event loop; without it `analyze` runs inline. */
  readonly analyzer?: Analyzer;
}

/**
 * Stores a dump in a room: the text is stored once by sha256 (gzip, compressed off the event
 * loop), indexed once with `analyze`, listed in the room's `documents` table, and announced in
 * the room document's server-only `documents` map. Returns the new document's metadata. `extra`
 * sets the kind (else detected), and for captures the runner as `addedBy` and the job as `captureId`.
 */
export async function ingestDocument(
  deps: IngestDeps,
  roomId: string,
  title: string,
  text: string,
  extra: { readonly kind?: DocumentKind; readonly addedBy?: string; readonly captureId?: string } = {},
): Promise<DocumentMeta> {
  const data = Buffer.from(text, 'utf8');
  const sha256 = createHash('sha256').update(data).digest('hex');
  const kind = extra.kind ?? detectKind(text);
  let blob: { gzip: Uint8Array; analysisGzip: Uint8Array } | undefined;
  if (!deps.store.documents.hasBlob(sha256)) {
    const started = performance.now();
    const analysisGzip = deps.analyzer
      ? deps.analyzer.analyzeGzip(text, kind)
      : gzipAsync(Buffer.from(JSON.stringify(analyze(text, kind)), 'utf8'));
    const [textGz, analysisGz] = await Promise.all([gzipAsync(data), analysisGzip]);
    const analyzeMs = performance.now() - started;
    blob = { gzip: textGz, analysisGzip: analysisGz };
    deps.log.info({ room: roomId, bytes: data.length, kind, analyzeMs: Math.round(analyzeMs) }, 'dump indexed');
  }
  const meta: DocumentMeta = {
    id: newId(), title, kind, bytes: data.length, sha256, createdAt: Date.now(),
    ...(extra.addedBy !== undefined ? { addedBy: extra.addedBy } : {}),
    ...(extra.captureId !== undefined ? { captureId: extra.captureId } : {}),
  };
  deps.store.documents.add(roomId, meta, blob);
  deps.texts.put(sha256, text);
  deps.rooms.get(roomId).transact((doc) => doc.getMap(RoomKey.documents).set(meta.id, { ...meta }));
  return meta;
}
