import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { addAnnotation, addReply, annotationsMap, deleteAnnotation, readAnnotation, readAnnotations, setBody, setResolved } from './annotation-doc';

const author = { id: 'u1', name: 'Ada', color: '#c0ffee' };
const sample = (id: string, createdAt: number): Annotation => ({
  id, docId: 'd1', from: 2, to: 5, quote: { prefix: 'ab', exact: 'cde', suffix: 'f' }, kind: 'spill',
  body: 'S×S scores spill', author, createdAt, resolved: false, replies: [],
});

describe('annotation helpers on the room document', () => {
  it('round-trips an annotation through a Y.Map and another replica', () => {
    const a = new Y.Doc();
    addAnnotation(a, { ...sample('x', 1), instruction: '%fusion.3' });
    const b = new Y.Doc();
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(readAnnotations(b)).toEqual([{ ...sample('x', 1), instruction: '%fusion.3' }]);
  });

  it('adds replies, resolves, edits and deletes', () => {
    const doc = new Y.Doc();
    addAnnotation(doc, sample('x', 1));
    expect(addReply(doc, 'x', { id: 'r1', body: 'agreed', author, createdAt: 2 })).toBe(true);
    expect(setResolved(doc, 'x', true)).toBe(true);
    expect(setBody(doc, 'x', 'new body', 3)).toBe(true);
    const [a] = readAnnotations(doc);
    expect(a).toMatchObject({ resolved: true, body: 'new body', editedAt: 3, replies: [{ id: 'r1', body: 'agreed' }] });
    expect(deleteAnnotation(doc, 'x')).toBe(true);
    expect(readAnnotations(doc)).toEqual([]);
    expect(addReply(doc, 'x', { id: 'r2', body: '', author, createdAt: 4 })).toBe(false);
    expect(setResolved(doc, 'missing', true)).toBe(false);
  });

  it('sorts by creation time and skips malformed values', () => {
    const doc = new Y.Doc();
    addAnnotation(doc, sample('late', 9));
    addAnnotation(doc, sample('early', 1));
    const bad = new Y.Map<unknown>();
    annotationsMap(doc).set('bad', bad);
    bad.set('id', 'bad');
    bad.set('from', 'not a number');
    expect(readAnnotations(doc).map((a) => a.id)).toEqual(['early', 'late']);
    expect(readAnnotation(bad)).toBeUndefined();
    expect(readAnnotation('text')).toBeUndefined();
  });

  it('round-trips a carried mark and distrusts a malformed one', () => {
    const doc = new Y.Doc();
    const carried = { annotationId: 'old', docId: 'd0', captureId: 'job1', detached: false };
    addAnnotation(doc, { ...sample('c', 1), carried });
    addAnnotation(doc, { ...sample('d', 2), carried: { annotationId: 'old2', docId: 'd0', detached: true } });
    expect(readAnnotations(doc).map((a) => a.carried)).toEqual([carried, { annotationId: 'old2', docId: 'd0', detached: true }]);
    for (const bad of [{ annotationId: '', docId: 'd0', detached: false }, { annotationId: 'a', docId: 'd0' }, { annotationId: 'a', docId: 'd0', detached: false, captureId: 7 }, 'x']) {
      const m = annotationsMap(doc).get('c')!;
      m.set('carried', bad);
      expect(readAnnotation(m)).toBeUndefined();
    }
  });
});
