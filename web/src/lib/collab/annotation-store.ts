import * as Y from 'yjs';
import {
  addAnnotation as insertAnnotation,
  addReply as appendReply,
  deleteAnnotation,
  deleteReply,
  setBody,
  setReplyBody,
  type Annotation,
  type Author,
} from '@seam/shared/model';

/** The browser's writes to annotations: fresh ids and times on top of the room-document helpers in `@seam/shared/model`. */

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

/** Edits the body of an annotation, or of one of its replies when `replyId` is given. */
export function editBody(doc: Y.Doc, annotationId: string, body: string, replyId?: string, now = Date.now()): void {
  if (!replyId) {
    setBody(doc, annotationId, body, now);
    return;
  }
  setReplyBody(doc, annotationId, replyId, body, now);
}

/** Deletes an annotation, or one of its replies when `replyId` is given. */
export function remove(doc: Y.Doc, annotationId: string, replyId?: string): void {
  if (!replyId) {
    deleteAnnotation(doc, annotationId);
    return;
  }
  deleteReply(doc, annotationId, replyId);
}
