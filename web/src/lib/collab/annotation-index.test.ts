import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { annotationsMap, annotationToVersion1YMap, annotationToYMap, readAnnotation, readAnnotations, setResolved, type Annotation } from '@seam/shared/model';
import { addAnnotation, addReply, editBody, remove } from './annotation-store';
import { watchAnnotations } from './annotation-index';

const author = { id: 'ada', name: 'Ada', color: '#112233' };
const mark = (doc: Y.Doc, body: string, at: number) =>
  addAnnotation(doc, { docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body, author }, at);

describe('watchAnnotations', () => {
  it('matches a full read after adds, replies, resolves, deletes and remote updates', () => {
    const doc = new Y.Doc();
    const a = mark(doc, 'first', 1);
    let seen: Annotation[] = [];
    const stop = watchAnnotations(doc, (l) => (seen = l));
    expect(seen).toEqual(readAnnotations(doc));
    const b = mark(doc, 'second', 2);
    addReply(doc, a, 'a reply', author, 3);
    setResolved(doc, b, true);
    expect(seen).toEqual(readAnnotations(doc));
    const remote = new Y.Doc();
    Y.applyUpdate(remote, Y.encodeStateAsUpdate(doc));
    addReply(remote, b, 'from afar', author, 4);
    mark(remote, 'third', 5);
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(remote));
    expect(seen).toEqual(readAnnotations(doc));
    remove(doc, a);
    expect(seen.map((x) => x.body)).toEqual(['second', 'third']);
    stop();
    mark(doc, 'unseen', 6);
    expect(seen).toHaveLength(2);
  });

  it('follows reply edits and deletions, and a version-1 annotation rewritten as version 2 as the server migrates it', () => {
    const doc = new Y.Doc();
    const a = mark(doc, 'first', 1);
    addReply(doc, a, 'one', author, 2);
    addReply(doc, a, 'two', author, 3);
    const old = readAnnotation(annotationsMap(doc).get(a))!;
    annotationsMap(doc).set('v1', annotationToVersion1YMap({ ...old, id: 'v1', createdAt: 4 }));
    let seen: Annotation[] = [];
    const stop = watchAnnotations(doc, (l) => (seen = l));
    const [r1, r2] = old.replies;
    editBody(doc, a, 'one, edited', r1!.id, 5);
    remove(doc, a, r2!.id);
    editBody(doc, 'v1', 'two, edited', r2!.id, 6);
    expect(seen).toEqual(readAnnotations(doc));
    expect(seen[0]?.replies.map((r) => r.body)).toEqual(['one, edited']);
    const migrated = readAnnotation(annotationsMap(doc).get('v1'))!;
    doc.transact(() => annotationsMap(doc).set('v1', annotationToYMap(migrated)));
    expect(seen).toEqual(readAnnotations(doc));
    expect(seen[1]?.replies.map((r) => r.body)).toEqual(['one', 'two, edited']);
    stop();
  });

  it('drops a malformed entry instead of showing it', () => {
    const doc = new Y.Doc();
    let seen: Annotation[] = [];
    watchAnnotations(doc, (l) => (seen = l));
    const bad = new Y.Map<unknown>();
    annotationsMap(doc).set('bad', bad);
    bad.set('id', 'bad');
    expect(seen).toEqual([]);
  });
});

