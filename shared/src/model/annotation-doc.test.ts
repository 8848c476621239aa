import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import {
  addAnnotation, addReply, annotationsMap, annotationToVersion1YMap, annotationToYMap, deleteAnnotation, deleteReply, isVersion1Annotation, readAnnotation,
  readAnnotations, replyItems, roomVersion, setBody, setReplyBody, setResolved,
} from './annotation-doc';
import { RoomKey, SettingKey } from './room-schema';

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
      m.set('a', JSON.stringify({ ...(JSON.parse(m.get('a') as string) as object), carried: bad }));
      expect(readAnnotation(m)).toBeUndefined();
    }
  });
});

/** Every Yjs item (struct) a document holds, deleted ones included. */
const items = (doc: Y.Doc) => [...doc.store.clients.values()].reduce((n, structs) => n + structs.reduce((k, s) => k + s.length, 0), 0);
const full = (id: string): Annotation => ({
  ...sample(id, 1), instruction: '%fusion.3', bytes: 4096, traffic: 8192, editedAt: 7, resolved: true,
  carried: { annotationId: 'old', docId: 'd0', detached: false },
  replies: [{ id: 'r1', body: 'first', author, createdAt: 2 }, { id: 'r2', body: 'second', author, createdAt: 3, editedAt: 4 }],
});

describe('version 2 of the annotation map', () => {
  it('keeps an annotation as created in one value and its changes as keys: two items without replies, thirteen in version 1', () => {
    const v2 = new Y.Doc();
    annotationsMap(v2).set('x', annotationToYMap({ ...sample('x', 1), instruction: '%fusion.3' }));
    const v1 = new Y.Doc();
    annotationsMap(v1).set('x', annotationToVersion1YMap({ ...sample('x', 1), instruction: '%fusion.3' }));
    expect(items(v2)).toBe(2);
    expect(items(v1)).toBe(13);
    expect([...annotationsMap(v2).get('x')!.keys()]).toEqual(['a']);
    expect(isVersion1Annotation(annotationsMap(v2).get('x'))).toBe(false);
    expect(isVersion1Annotation(annotationsMap(v1).get('x'))).toBe(true);
  });

  it('reads both forms of the same annotation alike, with every optional field, replies, an edit and a resolution', () => {
    const a = full('x');
    for (const make of [annotationToYMap, annotationToVersion1YMap]) {
      const doc = new Y.Doc();
      annotationsMap(doc).set('x', make(a));
      const b = new Y.Doc();
      Y.applyUpdate(b, Y.encodeStateAsUpdate(doc));
      expect(readAnnotations(b)).toEqual([a]);
    }
  });

  it('writes replies, reply edits and deletions, resolutions and body edits in the form of the annotation they change', () => {
    for (const make of [annotationToYMap, annotationToVersion1YMap]) {
      const doc = new Y.Doc();
      annotationsMap(doc).set('x', make(sample('x', 1)));
      expect(addReply(doc, 'x', { id: 'r1', body: 'one', author, createdAt: 2 })).toBe(true);
      expect(addReply(doc, 'x', { id: 'r2', body: 'two', author, createdAt: 3 })).toBe(true);
      expect(setReplyBody(doc, 'x', 'r1', 'one, edited', 5)).toBe(true);
      expect(deleteReply(doc, 'x', 'r2')).toBe(true);
      expect(setResolved(doc, 'x', true)).toBe(true);
      expect(setBody(doc, 'x', 'edited', 6)).toBe(true);
      expect(setReplyBody(doc, 'x', 'r2', 'gone', 7)).toBe(false);
      expect(deleteReply(doc, 'x', 'r2')).toBe(false);
      expect(setReplyBody(doc, 'missing', 'r1', 'no', 7)).toBe(false);
      expect(readAnnotations(doc)).toEqual([{ ...sample('x', 1), body: 'edited', editedAt: 6, resolved: true, replies: [{ id: 'r1', body: 'one, edited', author, createdAt: 2, editedAt: 5 }] }]);
      expect(isVersion1Annotation(annotationsMap(doc).get('x'))).toBe(make === annotationToVersion1YMap);
    }
  });

  it('merges concurrent replies, a concurrent resolution and a concurrent edit from two replicas', () => {
    const a = new Y.Doc();
    addAnnotation(a, sample('x', 1));
    const b = new Y.Doc();
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    addReply(a, 'x', { id: 'ra', body: 'from a', author, createdAt: 2 });
    addReply(b, 'x', { id: 'rb', body: 'from b', author, createdAt: 2 });
    setResolved(a, 'x', true);
    setBody(b, 'x', 'edited on b', 3);
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
    const merged = readAnnotations(a);
    expect(readAnnotations(b)).toEqual(merged);
    expect(merged[0]).toMatchObject({ body: 'edited on b', editedAt: 3, resolved: true, replies: [{ id: 'ra' }, { id: 'rb' }] });
  });

  it('distrusts a version-2 map whose value or changed fields are malformed, and skips a reply that is', () => {
    const good = new Y.Doc();
    addAnnotation(good, sample('x', 1));
    const created = JSON.parse(annotationsMap(good).get('x')!.get('a') as string) as object;
    const hostile: unknown[] = [
      'text', '{"id": "x"', 7, null, [1, 2], { ...created }, JSON.stringify({ ...created, from: 'two' }),
      JSON.stringify({ ...created, kind: 'shout' }),
      JSON.stringify({ ...created, body: 5 }),
      JSON.stringify({ ...created, trace: { type: 'range', fromUs: 9, toUs: 1 } }),
      '{"__proto__": {"id": "x", "docId": "d1", "from": 0, "to": 0, "kind": "note", "body": "", "createdAt": 1}}',
    ];
    for (const value of hostile) {
      const doc = new Y.Doc();
      const m = new Y.Map<unknown>();
      annotationsMap(doc).set('x', m);
      m.set('a', value);
      expect(readAnnotation(m)).toBeUndefined();
      expect(readAnnotations(doc)).toEqual([]);
    }
    for (const [key, value] of [['body', 5], ['resolved', 'yes'], ['body', null]] as const) {
      const doc = new Y.Doc();
      addAnnotation(doc, sample('x', 1));
      annotationsMap(doc).get('x')!.set(key, value);
      expect(readAnnotations(doc)).toEqual([]);
    }
    const doc = new Y.Doc();
    addAnnotation(doc, sample('x', 1));
    const m = annotationsMap(doc).get('x')!;
    m.set('r/bad', { id: 'bad', body: 1, author, createdAt: 2 });
    m.set('r/other', { id: 'not-the-key', body: 'b', author, createdAt: 2 });
    m.set('r/y', new Y.Map());
    m.set('stray', 'ignored');
    expect(readAnnotations(doc)).toEqual([sample('x', 1)]);
  });

  it('names the items that hold a reply in either form', () => {
    for (const make of [annotationToYMap, annotationToVersion1YMap]) {
      const doc = new Y.Doc();
      annotationsMap(doc).set('x', make(full('x')));
      const m = annotationsMap(doc).get('x')!;
      const before = replyItems(m, 'r1');
      expect(before?.whole.deleted).toBe(false);
      setReplyBody(doc, 'x', 'r1', 'edited', 9);
      const after = replyItems(m, 'r1');
      expect(after?.body).not.toBe(before?.body);
      expect(replyItems(m, 'nope')).toBeUndefined();
    }
  });

  it('reads the room version from the settings, 1 when none is recorded or it is not a version', () => {
    const doc = new Y.Doc();
    expect(roomVersion(doc)).toBe(1);
    doc.getMap(RoomKey.settings).set(SettingKey.version, 2);
    expect(roomVersion(doc)).toBe(2);
    for (const bad of ['2', 0, 1.5, -3]) {
      doc.getMap(RoomKey.settings).set(SettingKey.version, bad);
      expect(roomVersion(doc)).toBe(1);
    }
  });
});
