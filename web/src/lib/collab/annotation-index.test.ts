import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { annotationsMap, readAnnotations, setResolved, type Annotation } from '@seam/shared/model';
import { addAnnotation, addReply, remove } from './annotation-store';
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

