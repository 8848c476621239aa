import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { readAnnotations } from '@seam/shared/model';
import { addAnnotation, addReply, editBody, remove } from './annotation-store';

const author = { id: 'ada', name: 'Ada', color: '#112233' };

function seeded() {
  const doc = new Y.Doc();
  const id = addAnnotation(doc, { docId: 'd', from: 2, to: 5, quote: { prefix: 'ab', exact: 'cde', suffix: 'f' }, kind: 'spill', body: 'big', author }, 10);
  return { doc, id };
}

describe('annotation writes', () => {
  it('adds an annotation the shared reader accepts', () => {
    const { doc, id } = seeded();
    expect(readAnnotations(doc)).toEqual([
      { id, docId: 'd', from: 2, to: 5, quote: { prefix: 'ab', exact: 'cde', suffix: 'f' }, kind: 'spill', body: 'big', author, createdAt: 10, resolved: false, replies: [] },
    ]);
  });
  it('edits and deletes one reply without touching the others', () => {
    const { doc, id } = seeded();
    addReply(doc, id, 'first', author, 11);
    addReply(doc, id, 'second', author, 12);
    const [r1, r2] = readAnnotations(doc)[0]?.replies ?? [];
    editBody(doc, id, 'first, edited', r1?.id, 13);
    remove(doc, id, r2?.id);
    const replies = readAnnotations(doc)[0]?.replies;
    expect(replies?.map((r) => [r.body, r.editedAt])).toEqual([['first, edited', 13]]);
  });
  it('edits the annotation body and deletes the whole thread', () => {
    const { doc, id } = seeded();
    editBody(doc, id, 'bigger', undefined, 20);
    expect(readAnnotations(doc)[0]?.body).toBe('bigger');
    remove(doc, id);
    expect(readAnnotations(doc)).toEqual([]);
  });
  it('refuses a reply to an annotation that is gone', () => {
    const { doc, id } = seeded();
    remove(doc, id);
    expect(addReply(doc, id, 'late', author)).toBe(false);
  });
});
