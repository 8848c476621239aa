import { carryDocument, MAX_CARRIED, pairDocuments } from '@seam/shared/ir';
import { addAnnotation, readAnnotations, type Annotation, type CarriedCounts, type DocumentMeta } from '@seam/shared/model';
import { startAnalysisWorker, WORKER_THRESHOLD } from '../analyzer';
import { newId } from '../auth/tokens';
import type { CarryJob, CarryReply } from './carry-worker';
import type { ContentStores } from '../app';
import type { TextCache } from '../store/text-cache';
import type { Rooms } from '../sync/rooms';

/** What carrying annotations over reads and writes: the stored dumps, their texts, and the room documents. */
export interface CarryDeps {
  /** Where the dumps' metadata is read (the shared store in scaled mode). */
  readonly content: Pick<ContentStores, 'documents'>;
  readonly rooms: Rooms;
  readonly texts: TextCache;
  /** Where a layer that could not be matched (its worker failed or ran out of time) is reported. */
  readonly log?: { warn(obj: object, msg: string): void };
  /** Layers whose two texts together are at least this long (characters) are matched in a worker thread; default `WORKER_THRESHOLD`. */
  readonly carryWorkerChars?: number;
}

/** Longest a worker may take to carry one layer's annotations before it is stopped (and that layer's are not carried). */
export const CARRY_SECONDS = 120;

/** `carryDocument` in a worker thread of its own, stopped after `CARRY_SECONDS`. */
function carryInWorker(job: CarryJob): Promise<Annotation[]> {
  const worker = startAnalysisWorker(new URL('./carry-worker.ts', import.meta.url));
  let timer: NodeJS.Timeout | undefined;
  return new Promise<Annotation[]>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`matching took longer than ${CARRY_SECONDS} s`)), CARRY_SECONDS * 1000);
    worker.once('message', (reply: CarryReply) => ('copies' in reply ? resolve(reply.copies) : reject(new Error(reply.error))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the carry worker exited with ${code}`)));
    worker.postMessage(job);
  }).finally(() => {
    clearTimeout(timer);
    void worker.terminate();
  });
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
 * counted as not carried. Large layers are matched in a worker thread, off the event loop. The copies are written in one server transaction of the room document,
 * so every client sees them at once; the originals are not touched. Returns the counts.
 */
export async function carryAnnotations(deps: CarryDeps, roomId: string, previous: CaptureDocuments, next: CaptureDocuments): Promise<CarriedCounts> {
  const metas = async (ids: readonly string[]) =>
    (await Promise.all(ids.map((id) => deps.content.documents.get(roomId, id)))).filter((d): d is DocumentMeta => d !== undefined);
  const prevDocs = await metas(previous.documents);
  const pairs = pairDocuments(prevDocs, await metas(next.documents));
  const room = await deps.rooms.load(roomId);
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
    if (!next || prevText === undefined || nextText === undefined) continue;
    const large = prevText.length + nextText.length >= (deps.carryWorkerChars ?? WORKER_THRESHOLD);
    if (!large) {
      copies.push(...carryDocument(prevText, nextText, prev.kind, own, ctx));
      continue;
    }
    // A layer whose matching fails is not carried (its annotations stay where they are); the others still are.
    try {
      copies.push(...(await carryInWorker({ prevText, nextText, kind: prev.kind, annotations: own, docId: next.id, captureId: previous.id })));
    } catch (err) {
      deps.log?.warn({ room: roomId, doc: prev.id, annotations: own.length, err: (err as Error).message }, 'annotations of one layer not carried');
    }
  }
  if (copies.length > 0) await room.transact((doc) => { for (const a of copies) addAnnotation(doc, a); });
  return { annotations: copies.length, detached: copies.filter((a) => a.carried?.detached === true).length, notCarried: onPrevious.length - copies.length };
}
