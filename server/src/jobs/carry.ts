import { carryDocument, MAX_CARRIED, pairDocuments } from '@seam/shared/ir';
import { addAnnotation, readAnnotations, type Annotation, type CarriedCounts, type DocumentMeta } from '@seam/shared/model';
import { newId } from '../auth/tokens';
import type { Store } from '../store';
import type { TextCache } from '../store/text-cache';
import type { Rooms } from '../sync/rooms';

/** What carrying annotations over reads and writes: the stored dumps, their texts, and the room documents. */
export interface CarryDeps {
  readonly store: Store;
  readonly rooms: Rooms;
  readonly texts: TextCache;
}

/** One capture's id and documents, as the job queue records them. */
export interface CaptureDocuments {
  readonly id: string;
  readonly documents: readonly string[];
}

/**
 * Carries the annotations on the dumps of `previous` over to the dumps of `next`, the capture that
 * re-ran it: each layer to the same layer (see `pairDocuments`), each annotation onto its matched
 * range or detached (see `carryDocument`). At most `MAX_CARRIED`, oldest first; the rest are
 * counted as not carried. The copies are written in one server transaction of the room document,
 * so every client sees them at once; the originals are not touched. Returns the counts.
 */
export async function carryAnnotations(deps: CarryDeps, roomId: string, previous: CaptureDocuments, next: CaptureDocuments): Promise<CarriedCounts> {
  const metas = (ids: readonly string[]) => ids.map((id) => deps.store.documents.get(roomId, id)).filter((d): d is DocumentMeta => d !== undefined);
  const prevDocs = metas(previous.documents);
  const pairs = pairDocuments(prevDocs, metas(next.documents));
  const room = deps.rooms.get(roomId);
  const onPrevious = readAnnotations(room.doc).filter((a) => previous.documents.includes(a.docId) && a.trace === undefined);
  const taken = onPrevious.slice(0, MAX_CARRIED);
  const copies: Annotation[] = [];
  for (const prev of prevDocs) {
    const own = taken.filter((a) => a.docId === prev.id);
    const next = pairs.get(prev.id);
    if (own.length === 0) continue;
    const [prevText, nextText] = next ? await Promise.all([deps.texts.get(prev.sha256), deps.texts.get(next.sha256)]) : [undefined, undefined];
    const ctx = { docId: next?.id ?? '', captureId: previous.id, newId };
    // A layer the new capture lacks (or whose text is gone) has nothing to match: its annotations
    // are not copied, and stay where they are.
    if (next && prevText !== undefined && nextText !== undefined) copies.push(...carryDocument(prevText, nextText, prev.kind, own, ctx));
  }
  if (copies.length > 0) room.transact((doc) => { for (const a of copies) addAnnotation(doc, a); });
  return { annotations: copies.length, detached: copies.filter((a) => a.carried?.detached === true).length, notCarried: onPrevious.length - copies.length };
}
