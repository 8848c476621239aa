import type { DocumentMeta } from '@seam/shared/model';
import type { ContentStores } from './app';
import { checkDocumentQuota, type DocumentLimits } from './room-quotas';
import type { StoredBlob } from './store/documents-store';
import type { StoredTrace } from './trace/stored-form';

/**
 * Stores a prepared dump: its blob when new, its trace reduction if any (which names the blob),
 * then the room's document that lists them, once the room's document quota (`limits`) holds in
 * the transaction that lists it (exact however many store at once, on any instance). The document
 * is listed only once all it needs is stored; a blob or reduction left by a failure before it (the
 * shared store unreachable, the quota passed) is keyed by content, unlisted, and taken as it is
 * by the next ingest of the same bytes.
 */
export async function storeDocument(content: ContentStores, limits: DocumentLimits, roomId: string, meta: DocumentMeta, blob: StoredBlob | undefined, trace: StoredTrace | undefined): Promise<void> {
  if (blob) await content.documents.putBlob(meta.sha256, meta.bytes, blob);
  if (trace) await content.traces.put(meta.sha256, trace);
  await content.documents.add(roomId, meta, undefined, (used) => checkDocumentQuota(used, limits, meta.bytes));
}
