import * as Y from 'yjs';
import {
  addAnnotation as insertAnnotation,
  addReply as appendReply,
  annotationsMap,
  deleteAnnotation,
  setBody,
  type Annotation,
  type Author,
} from '@seam/shared/model';

/**
 * The browser's writes to annotations, on top of the room-document helpers in
 * `@seam/shared/model`; only the reply edits, which those helpers leave out, are written here.
 */

/** A fresh random id for an annotation or reply. */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Adds an annotation and returns its id. */
export function addAnnotation(doc: Y.Doc, a: Omit<Annotation, 'id' | 'replies' | 'resolved' | 'createdAt'>, now = Date.now()): string {
  const id = newId();
  insertAnnotation(doc, { ...a, id, replies: [], resolved: false, createdAt: now });
  return id;
}

/** Adds a reply to an annotation; false when the annotation is gone. */
export function addReply(doc: Y.Doc, annotationId: string, body: string, by: Author, now = Date.now()): boolean {
  return appendReply(doc, annotationId, { id: newId(), body, author: { ...by }, createdAt: now });
}

function findReply(doc: Y.Doc, annotationId: string, replyId: string): { array: Y.Array<unknown>; index: number; map: Y.Map<unknown> } | null {
  const m = annotationsMap(doc).get(annotationId);
  const replies = m instanceof Y.Map ? m.get('replies') : undefined;
  if (!(replies instanceof Y.Array)) return null;
  const arr = replies.toArray();
  for (let i = 0; i < arr.length; i++) {
    const r = arr[i];
    if (r instanceof Y.Map && r.get('id') === replyId) return { array: replies, index: i, map: r };
  }
  return null;
}

/** Edits the body of an annotation, or of one of its replies when `replyId` is given. */
export function editBody(doc: Y.Doc, annotationId: string, body: string, replyId?: string, now = Date.now()): void {
  if (!replyId) {
    setBody(doc, annotationId, body, now);
    return;
  }
  const found = findReply(doc, annotationId, replyId);
  if (!found) return;
  doc.transact(() => {
    found.map.set('body', body);
    found.map.set('editedAt', now);
  });
}

/** Deletes an annotation, or one of its replies when `replyId` is given. */
export function remove(doc: Y.Doc, annotationId: string, replyId?: string): void {
  if (!replyId) {
    deleteAnnotation(doc, annotationId);
    return;
  }
  const found = findReply(doc, annotationId, replyId);
  if (found) found.array.delete(found.index, 1);
}
