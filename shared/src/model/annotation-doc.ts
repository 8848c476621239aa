import * as Y from 'yjs';
import { ANNOTATION_KINDS, type Annotation, type AnnotationKind, type Author, type Carried, type Quote, type Reply } from './annotation';
import { readTraceAnchor } from './annotation-trace';
import { RoomKey, SettingKey } from './room-schema';

/**
 * Helpers that read and write annotations in the room document (`annotations` Y.Map, keyed by
 * id, each value a Y.Map). Readers validate every field and return `undefined` for a value they
 * cannot trust, so a malformed entry never reaches a view.
 *
 * Two forms of an annotation's Y.Map exist (docs/room-document.md):
 * - version 2, written here: `a` holds the annotation as created, one JSON string (`id`, `docId`,
 *   `from`, `to`, `quote`, `kind`, `body`, `author`, `createdAt` and the optional `instruction`,
 *   `bytes`, `traffic`, `trace`, `carried`); what changes later has keys of its own, so that
 *   concurrent edits merge: `body` and `editedAt` once edited, `resolved` (absent: open), and one
 *   key `r/<reply id>` per reply. An annotation without replies is two Yjs items, not fourteen.
 * - version 1, read only (rooms written before, clients that predate version 2): every field its
 *   own key, `replies` a Y.Array of Y.Maps.
 * Writers that change an annotation keep its form; the server migrates version-1 rooms on load.
 */

/** The room-document version these helpers write; `settings.version` records it once a room is migrated. */
export const ROOM_DOCUMENT_VERSION = 2;

/** Keys of a version-2 annotation map besides the replies. */
const Field = { created: 'a', body: 'body', editedAt: 'editedAt', resolved: 'resolved' } as const;
/** Prefix of a version-2 reply's key: `r/<reply id>`. */
const REPLY_KEY = 'r/';

/** The room document's annotation map. */
export function annotationsMap(doc: Y.Doc): Y.Map<Y.Map<unknown>> {
  return doc.getMap(RoomKey.annotations);
}

/** The version the room document records (`settings.version`); 1 when it records none. */
export function roomVersion(doc: Y.Doc): number {
  const v = doc.getMap(RoomKey.settings).get(SettingKey.version);
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 1;
}

/** Whether `v` is an annotation map of version 1 (every field its own key), well formed or not. */
export function isVersion1Annotation(v: unknown): boolean {
  return v instanceof Y.Map && !v.has(Field.created);
}

/** A reply as the plain value a version-2 annotation keeps under `r/<id>`. */
function replyValue(reply: Reply): Record<string, unknown> {
  const { id, body, author, createdAt, editedAt } = reply;
  return { id, body, author: { ...author }, createdAt, ...(editedAt !== undefined ? { editedAt } : {}) };
}

/** A version-1 reply map; only for annotations that are still of version 1. */
function replyToYMap(reply: Reply): Y.Map<unknown> {
  const m = new Y.Map<unknown>();
  for (const [key, value] of Object.entries(replyValue(reply))) m.set(key, value);
  return m;
}

/** The annotation as created: what `a` holds, as JSON. */
function createdValue(a: Annotation): Record<string, unknown> {
  return {
    id: a.id, docId: a.docId, from: a.from, to: a.to, quote: { ...a.quote }, kind: a.kind, body: a.body, author: { ...a.author }, createdAt: a.createdAt,
    ...(a.instruction !== undefined ? { instruction: a.instruction } : {}),
    ...(a.bytes !== undefined ? { bytes: a.bytes } : {}),
    ...(a.traffic !== undefined ? { traffic: a.traffic } : {}),
    ...(a.trace !== undefined ? { trace: { ...a.trace } } : {}),
    ...(a.carried !== undefined ? { carried: { ...a.carried } } : {}),
  };
}

/** Builds the (version-2) Y.Map for an annotation, not yet inserted anywhere. */
export function annotationToYMap(a: Annotation): Y.Map<unknown> {
  const m = new Y.Map<unknown>();
  m.set(Field.created, JSON.stringify(createdValue(a)));
  if (a.editedAt !== undefined) m.set(Field.editedAt, a.editedAt);
  if (a.resolved) m.set(Field.resolved, true);
  for (const r of a.replies) m.set(REPLY_KEY + r.id, replyValue(r));
  return m;
}

/**
 * Builds the version-1 Y.Map of an annotation, as clients wrote it before version 2. No writer of
 * the room uses it: it is there for tests and benchmarks that need a room of that version (what
 * the server migrates on load, what old clients still send).
 */
export function annotationToVersion1YMap(a: Annotation): Y.Map<unknown> {
  const m = new Y.Map<unknown>();
  for (const [key, value] of Object.entries(createdValue(a))) m.set(key, value);
  m.set(Field.resolved, a.resolved);
  if (a.editedAt !== undefined) m.set(Field.editedAt, a.editedAt);
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
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Y.AbstractType);
/** A plain value's own field: a decoded value may carry a `__proto__` key, whose fields are not its own. */
const own = (o: Record<string, unknown>) => (key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

function readAuthor(v: unknown): Author | undefined {
  if (!isObject(v)) return undefined;
  const o = own(v);
  const [id, name, color] = [o('id'), o('name'), o('color')];
  return isStr(id) && isStr(name) && isStr(color) ? { id, name, color } : undefined;
}

function readQuote(v: unknown): Quote | undefined {
  if (!isObject(v)) return undefined;
  const o = own(v);
  const [prefix, exact, suffix] = [o('prefix'), o('exact'), o('suffix')];
  return isStr(prefix) && isStr(exact) && isStr(suffix) ? { prefix, exact, suffix } : undefined;
}

const isId = (v: unknown): v is string => isStr(v) && v.length > 0 && v.length <= 200;

/** Reads a `carried` mark; `undefined` when a field is missing or mistyped. */
export function readCarried(v: unknown): Carried | undefined {
  if (!isObject(v)) return undefined;
  const o = own(v);
  const [annotationId, docId, captureId, detached] = [o('annotationId'), o('docId'), o('captureId'), o('detached')];
  if (!isId(annotationId) || !isId(docId) || typeof detached !== 'boolean') return undefined;
  if (captureId !== undefined && !isId(captureId)) return undefined;
  return { annotationId, docId, ...(captureId !== undefined ? { captureId } : {}), detached };
}

/** Reads one reply from a field getter; `undefined` when a field is missing or mistyped. */
function readReplyFields(get: (key: string) => unknown): Reply | undefined {
  const id = get('id');
  const body = get('body');
  const author = readAuthor(get('author'));
  const createdAt = get('createdAt');
  const editedAt = get('editedAt');
  if (!isStr(id) || !isStr(body) || !author || !isNum(createdAt)) return undefined;
  return isNum(editedAt) ? { id, body, author, createdAt, editedAt } : { id, body, author, createdAt };
}

/** Reads one reply, a version-1 Y.Map or a version-2 plain value; `undefined` when a field is missing or mistyped. */
export function readReply(v: unknown): Reply | undefined {
  if (v instanceof Y.Map) return readReplyFields((key) => v.get(key));
  return isObject(v) ? readReplyFields(own(v)) : undefined;
}

/**
 * Reads the fields every form shares (all but `resolved`, `replies` and `editedAt`) from a field
 * getter; `undefined` when one is missing or mistyped.
 */
function readCreated(get: (key: string) => unknown): Omit<Annotation, 'resolved' | 'replies' | 'editedAt'> | undefined {
  const id = get('id');
  const docId = get('docId');
  const from = get('from');
  const to = get('to');
  const quote = readQuote(get('quote'));
  const kind = get('kind');
  const body = get('body');
  const author = readAuthor(get('author'));
  const createdAt = get('createdAt');
  if (!isStr(id) || !isStr(docId) || !isNum(from) || !isNum(to) || from > to || from < 0) return undefined;
  if (!quote || !author || !isStr(body) || !isNum(createdAt)) return undefined;
  if (!isStr(kind) || !(ANNOTATION_KINDS as readonly string[]).includes(kind)) return undefined;
  const instruction = get('instruction');
  const bytes = get('bytes');
  const traffic = get('traffic');
  // A trace anchor that is there but malformed makes the whole annotation untrusted.
  const rawTrace = get('trace');
  const trace = rawTrace === undefined ? undefined : readTraceAnchor(rawTrace);
  if (rawTrace !== undefined && !trace) return undefined;
  // So is a carried mark that is there but malformed: it says where the annotation came from.
  const rawCarried = get('carried');
  const carried = rawCarried === undefined ? undefined : readCarried(rawCarried);
  if (rawCarried !== undefined && !carried) return undefined;
  return {
    id, docId, from, to, quote, kind: kind as AnnotationKind, body, author, createdAt,
    ...(isStr(instruction) ? { instruction } : {}),
    ...(isNum(bytes) && bytes >= 0 ? { bytes } : {}),
    ...(isNum(traffic) && traffic >= 0 ? { traffic } : {}),
    ...(trace ? { trace } : {}),
    ...(carried ? { carried } : {}),
  };
}

const byTimeThenId = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function readVersion1(v: Y.Map<unknown>): Annotation | undefined {
  const created = readCreated((key) => v.get(key));
  const resolved = v.get(Field.resolved);
  if (!created || typeof resolved !== 'boolean') return undefined;
  const replies: Reply[] = [];
  const list = v.get('replies');
  if (list instanceof Y.Array) {
    for (const r of list.toArray()) {
      const reply = readReply(r);
      if (reply) replies.push(reply);
    }
  }
  const editedAt = v.get(Field.editedAt);
  return { ...created, resolved, replies, ...(isNum(editedAt) ? { editedAt } : {}) };
}

function readVersion2(v: Y.Map<unknown>, value: unknown): Annotation | undefined {
  if (!isObject(value)) return undefined;
  const created = readCreated(own(value));
  const body = v.has(Field.body) ? v.get(Field.body) : created?.body;
  const resolved = v.has(Field.resolved) ? v.get(Field.resolved) : false;
  // A changed field that is there but mistyped distrusts the annotation, as a mistyped version-1 field does.
  if (!created || !isStr(body) || typeof resolved !== 'boolean') return undefined;
  const replies: Reply[] = [];
  for (const [key, r] of v.entries()) {
    if (!key.startsWith(REPLY_KEY)) continue;
    const reply = readReply(r);
    if (reply && reply.id === key.slice(REPLY_KEY.length)) replies.push(reply);
  }
  const editedAt = v.get(Field.editedAt);
  return { ...created, body, resolved, replies: replies.sort(byTimeThenId), ...(isNum(editedAt) ? { editedAt } : {}) };
}

/**
 * The created value of a version-2 annotation: `a` holds it as one JSON string, which Yjs decodes
 * as one string rather than field by field (a room of 10,000 annotations applies in under half
 * the time it takes with `a` as a plain object). `undefined` for anything but a string of JSON.
 */
function parseCreated(raw: unknown): unknown {
  if (typeof raw !== 'string') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads and validates one annotation map of either form; `undefined` when it is not a well-formed annotation. */
export function readAnnotation(v: unknown): Annotation | undefined {
  if (!(v instanceof Y.Map)) return undefined;
  return v.has(Field.created) ? readVersion2(v, parseCreated(v.get(Field.created))) : readVersion1(v);
}

/** Every well-formed annotation of the room, oldest first (ties by id). */
export function readAnnotations(doc: Y.Doc): Annotation[] {
  const out: Annotation[] = [];
  annotationsMap(doc).forEach((v, key) => {
    const a = readAnnotation(v);
    if (a && a.id === key) out.push(a);
  });
  return out.sort(byTimeThenId);
}

/** Runs `write` on annotation `id`'s map in one transaction; false when there is no such annotation. */
function changeAnnotation(doc: Y.Doc, id: string, origin: unknown, write: (m: Y.Map<unknown>) => boolean): boolean {
  const m = annotationsMap(doc).get(id);
  if (!(m instanceof Y.Map)) return false;
  let done = false;
  doc.transact(() => {
    done = write(m);
  }, origin);
  return done;
}

/** Appends a reply to annotation `id`; false when there is no such annotation. */
export function addReply(doc: Y.Doc, id: string, reply: Reply, origin?: unknown): boolean {
  return changeAnnotation(doc, id, origin, (m) => {
    if (!isVersion1Annotation(m)) {
      m.set(REPLY_KEY + reply.id, replyValue(reply));
      return true;
    }
    let replies = m.get('replies');
    if (!(replies instanceof Y.Array)) {
      replies = new Y.Array<Y.Map<unknown>>();
      m.set('replies', replies);
    }
    (replies as Y.Array<Y.Map<unknown>>).push([replyToYMap(reply)]);
    return true;
  });
}

/** Marks annotation `id` resolved or open; false when there is no such annotation. */
export function setResolved(doc: Y.Doc, id: string, resolved: boolean, origin?: unknown): boolean {
  return changeAnnotation(doc, id, origin, (m) => {
    m.set(Field.resolved, resolved);
    return true;
  });
}

/** Replaces the body of annotation `id` and stamps `editedAt`; false when there is no such annotation. */
export function setBody(doc: Y.Doc, id: string, body: string, editedAt: number, origin?: unknown): boolean {
  return changeAnnotation(doc, id, origin, (m) => {
    m.set(Field.body, body);
    m.set(Field.editedAt, editedAt);
    return true;
  });
}

/** Deletes annotation `id` with its replies; false when there is no such annotation. */
export function deleteAnnotation(doc: Y.Doc, id: string, origin?: unknown): boolean {
  const map = annotationsMap(doc);
  if (!map.has(id)) return false;
  doc.transact(() => map.delete(id), origin);
  return true;
}

/** A version-1 reply's array and index, when annotation map `m` is of version 1 and holds it. */
function version1Reply(m: Y.Map<unknown>, replyId: string): { array: Y.Array<unknown>; index: number; map: Y.Map<unknown> } | undefined {
  const replies = m.get('replies');
  if (!(replies instanceof Y.Array)) return undefined;
  const list = replies.toArray();
  const index = list.findIndex((r) => r instanceof Y.Map && r.get('id') === replyId);
  return index < 0 ? undefined : { array: replies, index, map: list[index] as Y.Map<unknown> };
}

/** Replaces the body of reply `replyId` of annotation `id` and stamps `editedAt`; false when either is missing. */
export function setReplyBody(doc: Y.Doc, id: string, replyId: string, body: string, editedAt: number, origin?: unknown): boolean {
  return changeAnnotation(doc, id, origin, (m) => {
    if (isVersion1Annotation(m)) {
      const found = version1Reply(m, replyId);
      found?.map.set('body', body);
      found?.map.set('editedAt', editedAt);
      return found !== undefined;
    }
    const reply = readReply(m.get(REPLY_KEY + replyId));
    if (reply?.id !== replyId) return false;
    m.set(REPLY_KEY + replyId, replyValue({ ...reply, body, editedAt }));
    return true;
  });
}

/** Deletes reply `replyId` of annotation `id`; false when either is missing. */
export function deleteReply(doc: Y.Doc, id: string, replyId: string, origin?: unknown): boolean {
  return changeAnnotation(doc, id, origin, (m) => {
    if (isVersion1Annotation(m)) {
      const found = version1Reply(m, replyId);
      found?.array.delete(found.index, 1);
      return found !== undefined;
    }
    if (!m.has(REPLY_KEY + replyId)) return false;
    m.delete(REPLY_KEY + replyId);
    return true;
  });
}

/**
 * The Yjs items that hold reply `replyId` of annotation map `m`, for tools that compare replicas
 * item by item: `whole`, whose deletion deletes the reply, and `body`, which an edit of its body
 * replaces (the same item in version 2, where the reply is one value). Undefined when `m` has no
 * such reply.
 */
export function replyItems(m: Y.Map<unknown>, replyId: string): { whole: Y.Item; body: Y.Item } | undefined {
  if (!isVersion1Annotation(m)) {
    const item = m._map.get(REPLY_KEY + replyId);
    return item && !item.deleted ? { whole: item, body: item } : undefined;
  }
  const found = version1Reply(m, replyId);
  const whole = found?.map._item;
  const body = found?.map._map.get('body');
  return whole && body ? { whole, body } : undefined;
}
