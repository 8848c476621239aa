import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { addAnnotation, addReply, annotationsMap, annotationToVersion1YMap, readAnnotations, setBody, setReplyBody, setResolved, type Annotation } from '@seam/shared/model';
import { checkUpdate } from './guard';
import { MalformedUpdate, readUpdateHeaders, StructKind } from './update-headers';
import { writeUpdate, type StructSpec } from './update-writer';

const annotation = (id: string): Annotation => ({
  id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b',
  author: { id: 'u', name: 'U', color: '#000' }, createdAt: 1, resolved: false, replies: [],
});

/** A server doc and a client replica that is in sync with it. */
function pair(): { server: Y.Doc; client: Y.Doc } {
  const server = new Y.Doc();
  server.getMap('documents').set('d', { id: 'd' });
  addAnnotation(server, annotation('a0'));
  const client = new Y.Doc();
  Y.applyUpdate(client, Y.encodeStateAsUpdate(server));
  return { server, client };
}

/** The update a client change produces. */
function change(client: Y.Doc, fn: (d: Y.Doc) => void): Uint8Array {
  const before = Y.encodeStateVector(client);
  fn(client);
  return Y.encodeStateAsUpdate(client, before);
}

describe('checkUpdate', () => {
  it('lets annotators add annotations and replies, nested in existing maps', () => {
    const { server, client } = pair();
    const u = change(client, (d) => {
      addAnnotation(d, annotation('a1'));
      (d.getMap('annotations').get('a0') as Y.Map<unknown>).set('resolved', true);
    });
    expect(checkUpdate(server, u, 'annotator')).toEqual({ ok: true, noop: false, clients: [client.clientID], update: u });
  });

  it('refuses client writes to server-only keys, even from the owner, including deletes', () => {
    const { server, client } = pair();
    const write = change(client, (d) => d.getMap('documents').set('forged', { id: 'forged' }));
    expect(checkUpdate(server, write, 'owner')).toEqual({ ok: false, reason: 'forbidden-key' });
    const del = change(client, (d) => d.getMap('documents').delete('d'));
    expect(checkUpdate(server, del, 'owner')).toEqual({ ok: false, reason: 'forbidden-key' });
  });

  it('refuses every viewer write but accepts a viewer sync step with nothing new', () => {
    const { server, client } = pair();
    const write = change(client, (d) => addAnnotation(d, annotation('v')));
    expect(checkUpdate(server, write, 'viewer')).toEqual({ ok: false, reason: 'viewer' });
    const replica = new Y.Doc();
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(server));
    const empty = Y.encodeStateAsUpdate(replica, Y.encodeStateVector(server));
    expect(checkUpdate(server, empty, 'viewer')).toMatchObject({ ok: true, noop: true });
  });

  it('keeps settings to the owner and refuses annotators while the room is locked', () => {
    const { server, client } = pair();
    const settings = change(client, (d) => d.getMap('settings').set('locked', false));
    expect(checkUpdate(server, settings, 'annotator')).toEqual({ ok: false, reason: 'forbidden-key' });
    expect(checkUpdate(server, settings, 'owner')).toMatchObject({ ok: true });
    Y.applyUpdate(server, settings);
    server.getMap('settings').set('locked', true);
    const note = change(client, (d) => d.getText('notes').insert(0, 'hi'));
    expect(checkUpdate(server, note, 'annotator')).toEqual({ ok: false, reason: 'locked' });
    const other = new Y.Doc();
    Y.applyUpdate(other, Y.encodeStateAsUpdate(server));
    const title = change(other, (d) => d.getMap('settings').set('title', 'x'));
    expect(checkUpdate(server, title, 'annotator')).toEqual({ ok: false, reason: 'forbidden-key' });
    expect(checkUpdate(server, note, 'owner')).toMatchObject({ ok: true });
  });

  it('refuses unknown root keys and updates with a gap', () => {
    const { server, client } = pair();
    expect(checkUpdate(server, change(client, (d) => d.getMap('secret').set('k', 1)), 'owner')).toMatchObject({ ok: false, reason: 'forbidden-key' });
    const c2 = new Y.Doc();
    Y.applyUpdate(c2, Y.encodeStateAsUpdate(server));
    change(c2, (d) => addAnnotation(d, annotation('first')));
    const second = change(c2, (d) => addAnnotation(d, annotation('second')));
    expect(checkUpdate(server, second, 'annotator')).toEqual({ ok: false, reason: 'gap' });
  });

  it('resolves parents created in the same update and by origin only', () => {
    const { server, client } = pair();
    const u = change(client, (d) => {
      d.getText('notes').insert(0, 'abc');
      d.getText('notes').insert(1, 'zz');
    });
    expect(checkUpdate(server, u, 'annotator')).toMatchObject({ ok: true });
    Y.applyUpdate(server, u);
    const more = change(client, (d) => d.getText('notes').insert(2, 'q'));
    expect(checkUpdate(server, more, 'annotator')).toMatchObject({ ok: true });
  });

  it('ignores deletes of content the server already deleted', () => {
    const { server, client } = pair();
    server.getMap('documents').set('d', { id: 'd', title: 'renamed' });
    Y.applyUpdate(client, Y.encodeStateAsUpdate(server, Y.encodeStateVector(client)));
    const step2 = change(client, (d) => addAnnotation(d, annotation('after')));
    const full = Y.encodeStateAsUpdate(client, Y.encodeStateVector(server));
    expect(checkUpdate(server, step2, 'annotator')).toMatchObject({ ok: true });
    expect(checkUpdate(server, full, 'annotator')).toMatchObject({ ok: true });
  });

  it('throws on bytes that are not an update', () => {
    const { server } = pair();
    expect(() => checkUpdate(server, new Uint8Array([5, 200, 1, 9]), 'owner')).toThrow();
  });
});

/** A room where the owner (client 1001) turned annotator captures off and an annotator (2002) wrote one entry. */
function ownerRoom(): { server: Y.Doc; owner: Y.Doc } {
  const server = new Y.Doc();
  const owner = new Y.Doc();
  owner.clientID = OWNER;
  owner.getMap('settings').set('allowAnnotatorCapture', false);
  Y.applyUpdate(server, Y.encodeStateAsUpdate(owner));
  const annotator = new Y.Doc();
  annotator.clientID = ANNOTATOR;
  Y.applyUpdate(annotator, Y.encodeStateAsUpdate(server));
  annotator.getMap('annotations').set('k', 1);
  Y.applyUpdate(server, Y.encodeStateAsUpdate(annotator, Y.encodeStateVector(server)));
  return { server, owner };
}
const OWNER = 1001;
const ANNOTATOR = 2002;
const item = (client: number, clock: number, names: Omit<Extract<StructSpec, { kind: 2 }>, 'kind' | 'id' | 'content'>, content: unknown[] = [true]): StructSpec =>
  ({ kind: StructKind.item, id: { client, clock }, content, ...names });

describe('checkUpdate against forged clocks and names', () => {
  it("refuses a struct that reuses the owner's client ID across its clock, which Yjs would hang under settings", () => {
    const { server } = ownerRoom();
    const forged = writeUpdate([item(OWNER, 0, { parent: 'annotations', parentSub: 'allowAnnotatorCapture' }, ['x', true])]);
    expect(checkUpdate(server, forged, 'annotator')).toEqual({ ok: false, reason: 'clock-overlap' });
    expect(checkUpdate(server, forged, 'owner')).toEqual({ ok: false, reason: 'clock-overlap' });
    // What the guard stops: Yjs integrates the tail after the owner's settings item and erases it.
    Y.applyUpdate(server, forged);
    expect(server.getMap('settings').toJSON()).toEqual({});
  });

  it('drops structs the document already holds from what it applies and relays, whatever they claim to hold', () => {
    const { server } = ownerRoom();
    const repeat = item(OWNER, 0, { parent: 'settings', parentSub: 'allowAnnotatorCapture' });
    const fresh = item(ANNOTATOR, 1, { parent: 'annotations', parentSub: 'j' });
    const verdict = checkUpdate(server, writeUpdate([repeat, fresh]), 'annotator');
    expect(verdict).toMatchObject({ ok: true, noop: false, clients: [ANNOTATOR] });
    if (!verdict.ok) return;
    expect(readUpdateHeaders(verdict.update).structs.map((s) => s.id)).toEqual([{ client: ANNOTATOR, clock: 1 }]);
    expect(checkUpdate(server, writeUpdate([repeat]), 'annotator')).toMatchObject({ ok: true, noop: true });
  });

  it('counts the key of every name an item gives, not only the one Yjs hangs it by', () => {
    const { server } = ownerRoom();
    const intoSettings = writeUpdate([item(ANNOTATOR, 1, { origin: { client: ANNOTATOR, clock: 0 }, rightOrigin: { client: OWNER, clock: 0 } })]);
    expect(checkUpdate(server, intoSettings, 'annotator')).toEqual({ ok: false, reason: 'forbidden-key' });
    expect(checkUpdate(server, intoSettings, 'owner')).toMatchObject({ ok: true });
  });

  it('refuses names Yjs would wait for: missing, pointing ahead in its own client, or in a cycle', () => {
    const { server } = ownerRoom();
    const missing = writeUpdate([item(ANNOTATOR, 1, { origin: { client: ANNOTATOR, clock: 0 }, rightOrigin: { client: 77, clock: 5 } })]);
    expect(checkUpdate(server, missing, 'annotator')).toEqual({ ok: false, reason: 'unknown-parent' });
    // What the guard stops: Yjs keeps the item pending inside the document, unchecked.
    Y.applyUpdate(server, missing);
    expect(server.store.pendingStructs).not.toBeNull();

    const { server: s2 } = ownerRoom();
    const ahead = writeUpdate([item(ANNOTATOR, 1, { origin: { client: ANNOTATOR, clock: 2 } }), item(ANNOTATOR, 2, { parent: 'annotations', parentSub: 'z' })]);
    expect(checkUpdate(s2, ahead, 'annotator')).toEqual({ ok: false, reason: 'unknown-parent' });
    const cycle = writeUpdate([
      item(5, 0, { origin: { client: 6, clock: 0 } }),
      item(5, 1, { parent: 'annotations', parentSub: 'a' }),
      item(6, 0, { origin: { client: 5, clock: 1 } }),
    ]);
    expect(checkUpdate(s2, cycle, 'annotator')).toEqual({ ok: false, reason: 'unknown-parent' });
    const forward = writeUpdate([item(6, 0, { origin: { client: 5, clock: 0 } }), item(5, 0, { parent: 'annotations', parentSub: 'a' })]);
    expect(checkUpdate(s2, forward, 'annotator')).toMatchObject({ ok: true, clients: [6, 5] });
  });

  it('refuses deletes of clocks that will not exist, and a client in two groups', () => {
    const { server } = ownerRoom();
    const ahead = writeUpdate([item(ANNOTATOR, 1, { parent: 'annotations', parentSub: 'j' })], new Map([[ANNOTATOR, [{ clock: 1, len: 5 }]]]));
    expect(checkUpdate(server, ahead, 'annotator')).toEqual({ ok: false, reason: 'unknown-parent' });
    const twice = writeUpdate([
      item(ANNOTATOR, 1, { parent: 'annotations', parentSub: 'j' }),
      item(5, 0, { parent: 'annotations', parentSub: 'a' }),
      item(ANNOTATOR, 1, { parent: 'settings', parentSub: 'title' }),
    ]);
    expect(() => checkUpdate(server, twice, 'annotator')).toThrow(MalformedUpdate);
  });

  it('refuses a skip that runs past the clock as a gap, and takes GC structs as garbage', () => {
    const { server } = ownerRoom();
    expect(checkUpdate(server, writeUpdate([{ kind: StructKind.skip, id: { client: ANNOTATOR, clock: 0 }, length: 3 }]), 'annotator')).toEqual({ ok: false, reason: 'gap' });
    const gc = writeUpdate([{ kind: StructKind.gc, id: { client: ANNOTATOR, clock: 1 }, length: 2 }, item(ANNOTATOR, 3, { origin: { client: ANNOTATOR, clock: 2 } })]);
    expect(checkUpdate(server, gc, 'annotator')).toMatchObject({ ok: true });
  });

});

describe('checkUpdate on version 2 of the annotation map', () => {
  it('takes version-2 writes by role as it took version 1: annotators write annotations, replies, edits and resolutions; viewers, a lock and other keys refuse them', () => {
    const { server, client } = pair();
    const u = change(client, (d) => {
      addAnnotation(d, annotation('v2'));
      addReply(d, 'v2', { id: 'r1', body: 'reply', author: { id: 'u', name: 'U', color: '#000' }, createdAt: 2 });
      setReplyBody(d, 'v2', 'r1', 'edited reply', 3);
      setResolved(d, 'a0', true);
      setBody(d, 'a0', 'edited', 4);
    });
    expect(checkUpdate(server, u, 'annotator')).toMatchObject({ ok: true, noop: false });
    expect(checkUpdate(server, u, 'viewer')).toEqual({ ok: false, reason: 'viewer' });
    const locked = new Y.Doc();
    Y.applyUpdate(locked, Y.encodeStateAsUpdate(server));
    locked.getMap('settings').set('locked', true);
    expect(checkUpdate(locked, u, 'annotator')).toEqual({ ok: false, reason: 'locked' });
    const other = pair();
    const forged = change(other.client, (d) => d.getMap('documents').set('x', annotationToVersion1YMap(annotation('x'))));
    expect(checkUpdate(other.server, forged, 'owner')).toEqual({ ok: false, reason: 'forbidden-key' });
    const version = pair();
    expect(checkUpdate(version.server, change(version.client, (d) => d.getMap('settings').set('version', 2)), 'annotator')).toEqual({ ok: false, reason: 'forbidden-key' });
  });

  it('passes malformed version-2 values under annotations to readers, which distrust them: nothing reaches a view', () => {
    const { server, client } = pair();
    const u = change(client, (d) => {
      const map = annotationsMap(d);
      for (const [id, value] of [['text', 'not JSON'], ['object', { id: 'object' }], ['nested', [[['deep']]]], ['proto', '{"__proto__": {"id": "proto"}}'],
        ['mistyped', JSON.stringify({ id: 'mistyped', docId: 'd', from: 'x', to: 1 })]] as const) {
        const m = new Y.Map<unknown>();
        map.set(id, m);
        m.set('a', value);
      }
      // Mutable keys of a good annotation, mistyped: the whole annotation is distrusted.
      (map.get('a0') as Y.Map<unknown>).set('resolved', 'yes');
    });
    const verdict = checkUpdate(server, u, 'annotator');
    expect(verdict).toMatchObject({ ok: true, noop: false });
    Y.applyUpdate(server, u);
    expect(annotationsMap(server).size).toBe(6);
    expect(readAnnotations(server)).toEqual([]);
  });
});
