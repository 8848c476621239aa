import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { addAnnotation, type Annotation } from '@seam/shared/model';
import { checkUpdate } from './guard';

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
    expect(checkUpdate(server, u, 'annotator')).toEqual({ ok: true, noop: false, clients: [client.clientID] });
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
