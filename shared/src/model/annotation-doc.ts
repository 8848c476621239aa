import * as Y from 'yjs';
import { ANNOTATION_KINDS, type Annotation, type AnnotationKind, type Author, type Carried, type Quote, type Reply } from './annotation';
import { readTraceAnchor } from './annotation-trace';
import { RoomKey } from './room-schema';

/**
 * Helpers that read and write annotations in the room document (`annotations` Y.Map, keyed by
 * id, each value a Y.Map; `replies` a Y.Array of Y.Map). Readers validate every field and return
 * `undefined` for a value they cannot trust, so a malformed entry never reaches a view.
 */

/** The room document's annotation map. */
export function annotationsMap(doc: Y.Doc): Y.Map<Y.Map<unknown>> {
  return doc.getMap(RoomKey.annotations);
}

function replyToYMap(reply: Reply): Y.Map<unknown> {
  const m = new Y.Map<unknown>();
  m.set('id', reply.id);
  m.set('body', reply.body);
  m.set('author', { ...reply.author });
  m.set('createdAt', reply.createdAt);
  if (reply.editedAt !== undefined) m.set('editedAt', reply.editedAt);
  return m;
}

/** Builds the Y.Map for an annotation (not yet inserted anywhere). */
export function annotationToYMap(a: Annotation): Y.Map<unknown> {
  const m = new Y.Map<unknown>();
  m.set('id', a.id);
  m.set('docId', a.docId);
  m.set('from', a.from);
  m.set('to', a.to);
  m.set('quote', { ...a.quote });
  m.set('kind', a.kind);
  m.set('body', a.body);
  m.set('author', { ...a.author });
  m.set('createdAt', a.createdAt);
  m.set('resolved', a.resolved);
  if (a.instruction !== undefined) m.set('instruction', a.instruction);
  if (a.bytes !== undefined) m.set('bytes', a.bytes);
  if (a.traffic !== undefined) m.set('traffic', a.traffic);
  if (a.trace !== undefined) m.set('trace', { ...a.trace });
  if (a.carried !== undefined) m.set('carried', { ...a.carried });
  if (a.editedAt !== undefined) m.set('editedAt', a.editedAt);
  const replies = new Y.Array<Y.Map<unknown>>();
  replies.push(a.replies.map(replyToYMap));
  m.set('replies', replies);
  return m;
}

/** Inserts an annotation into the room document, in one transaction with `origin`. */
export function addAnnotation(doc: Y.Doc, a: Annotation, origin?: unknown): void {
  doc.transact(() => annotationsMap(doc).set(a.id, annotationToYMap(a)), origin);
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function readAuthor(v: unknown): Author | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  return isStr(o.id) && isStr(o.name) && isStr(o.color) ? { id: o.id, name: o.name, color: o.color } : undefined;
}

function readQuote(v: unknown): Quote | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  return isStr(o.prefix) && isStr(o.exact) && isStr(o.suffix) ? { prefix: o.prefix, exact: o.exact, suffix: o.suffix } : undefined;
}

const isId = (v: unknown): v is string => isStr(v) && v.length > 0 && v.length <= 200;

/** Reads a `carried` mark; `undefined` when a field is missing or mistyped. */
export function readCarried(v: unknown): Carried | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (!isId(o.annotationId) || !isId(o.docId) || typeof o.detached !== 'boolean') return undefined;
  if (o.captureId !== undefined && !isId(o.captureId)) return undefined;
  return { annotationId: o.annotationId, docId: o.docId, ...(o.captureId !== undefined ? { captureId: o.captureId } : {}), detached: o.detached };
}

/** Reads one reply; `undefined` when a field is missing or mistyped. */
export function readReply(v: unknown): Reply | undefined {
  if (!(v instanceof Y.Map)) return undefined;
  const id = v.get('id');
  const body = v.get('body');
  const author = readAuthor(v.get('author'));
  const createdAt = v.get('createdAt');
  const editedAt = v.get('editedAt');
  if (!isStr(id) || !isStr(body) || !author || !isNum(createdAt)) return undefined;
  return isNum(editedAt) ? { id, body, author, createdAt, editedAt } : { id, body, author, createdAt };
}

/** Reads and validates one annotation map; `undefined` when it is not a well-formed annotation. */
export function readAnnotation(v: unknown): Annotation | undefined {
  if (!(v instanceof Y.Map)) return undefined;
  const id = v.get('id');
  const docId = v.get('docId');
  const from = v.get('from');
  const to = v.get('to');
  const quote = readQuote(v.get('quote'));
  const kind = v.get('kind');
  const body = v.get('body');
  const author = readAuthor(v.get('author'));
  const createdAt = v.get('createdAt');
  const resolved = v.get('resolved');
  const replies = v.get('replies');
  if (!isStr(id) || !isStr(docId) || !isNum(from) || !isNum(to) || from > to || from < 0) return undefined;
  if (!quote || !author || !isStr(body) || !isNum(createdAt) || typeof resolved !== 'boolean') return undefined;
  if (!isStr(kind) || !(ANNOTATION_KINDS as readonly string[]).includes(kind)) return undefined;
  const list: Reply[] = [];
  if (replies instanceof Y.Array) {
    for (const r of replies.toArray()) {
      const reply = readReply(r);
      if (reply) list.push(reply);
    }
  }
  const instruction = v.get('instruction');
  const editedAt = v.get('editedAt');
  const bytes = v.get('bytes');
  const traffic = v.get('traffic');
  // A trace anchor that is there but malformed makes the whole annotation untrusted.
  const rawTrace = v.get('trace');
  const trace = rawTrace === undefined ? undefined : readTraceAnchor(rawTrace);
  if (rawTrace !== undefined && !trace) return undefined;
  // So is a carried mark that is there but malformed: it says where the annotation came from.
  const rawCarried = v.get('carried');
  const carried = rawCarried === undefined ? undefined : readCarried(rawCarried);
  if (rawCarried !== undefined && !carried) return undefined;
  return {
    id, docId, from, to, quote, kind: kind as AnnotationKind, body, author, createdAt, resolved, replies: list,
    ...(isStr(instruction) ? { instruction } : {}),
    ...(isNum(bytes) && bytes >= 0 ? { bytes } : {}),
    ...(isNum(traffic) && traffic >= 0 ? { traffic } : {}),
    ...(trace ? { trace } : {}),
    ...(carried ? { carried } : {}),
    ...(isNum(editedAt) ? { editedAt } : {}),
  };
}

/** Every well-formed annotation of the room, oldest first (ties by id). */
export function readAnnotations(doc: Y.Doc): Annotation[] {
  const out: Annotation[] = [];
  annotationsMap(doc).forEach((v, key) => {
    const a = readAnnotation(v);
    if (a && a.id === key) out.push(a);
  });
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Appends a reply to annotation `id`; false when there is no such annotation. */
export function addReply(doc: Y.Doc, id: string, reply: Reply, origin?: unknown): boolean {
  const m = annotationsMap(doc).get(id);
  if (!(m instanceof Y.Map)) return false;
  doc.transact(() => {
    let replies = m.get('replies');
    if (!(replies instanceof Y.Array)) {
      replies = new Y.Array<Y.Map<unknown>>();
      m.set('replies', replies);
    }
    (replies as Y.Array<Y.Map<unknown>>).push([replyToYMap(reply)]);
  }, origin);
  return true;
}

/** Marks annotation `id` resolved or open; false when there is no such annotation. */
export function setResolved(doc: Y.Doc, id: string, resolved: boolean, origin?: unknown): boolean {
  const m = annotationsMap(doc).get(id);
  if (!(m instanceof Y.Map)) return false;
  doc.transact(() => m.set('resolved', resolved), origin);
  return true;
}

/** Replaces the body of annotation `id` and stamps `editedAt`; false when there is no such annotation. */
export function setBody(doc: Y.Doc, id: string, body: string, editedAt: number, origin?: unknown): boolean {
  const m = annotationsMap(doc).get(id);
  if (!(m instanceof Y.Map)) return false;
  doc.transact(() => {
    m.set('body', body);
    m.set('editedAt', editedAt);
  }, origin);
  return true;
}

/** Deletes annotation `id` with its replies; false when there is no such annotation. */
export function deleteAnnotation(doc: Y.Doc, id: string, origin?: unknown): boolean {
  const map = annotationsMap(doc);
  if (!map.has(id)) return false;
  doc.transact(() => map.delete(id), origin);
  return true;
}
