import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { annotationsMap, annotationToVersion1YMap, readAnnotation, RoomKey, setResolved } from '@seam/shared/model';
import { addAnnotation, addReply, editBody, remove } from './annotation-store';
import { rewrite, unsavedChanges } from './unsaved';

const ada = { id: 'u-ada', name: 'Ada', color: '#e11d48' };
const note = (body: string, exact = '%fusion.3 = f32[8] fusion(%p)') => ({
  docId: 'd1', from: 0, to: exact.length, quote: { prefix: '', exact, suffix: '' }, kind: 'note' as const, body, author: ada,
});

/** A server document with one annotation, and a replica synced from it. */
function setup() {
  const server = new Y.Doc();
  const first = addAnnotation(server, { ...note('on the server'), instruction: '%fusion.3' });
  const replica = new Y.Doc();
  Y.applyUpdate(replica, Y.encodeStateAsUpdate(server));
  /** The server accepts everything the replica has so far. */
  const accept = () => Y.applyUpdate(server, Y.encodeStateAsUpdate(replica, Y.encodeStateVector(server)));
  return { server, replica, first, accept };
}

describe('unsavedChanges', () => {
  it('is empty when the server has every change of the replica', () => {
    const { server, replica, first, accept } = setup();
    addReply(replica, first, 'a reply', ada);
    replica.getText(RoomKey.notes).insert(0, 'notes');
    accept();
    expect(unsavedChanges(replica, server)).toEqual([]);
  });

  it('keeps the text of an annotation the server never got, replies included', () => {
    const { server, replica, accept } = setup();
    addAnnotation(replica, note('saved before the refusal'));
    accept();
    const id = addAnnotation(replica, note('written into the lock', '%neg = f32[1024]{0} negate(%p)'));
    addReply(replica, id, 'and a reply to it', ada);
    const changes = unsavedChanges(replica, server);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: 'annotation', annotation: { id, body: 'written into the lock', replies: [{ body: 'and a reply to it' }] } });
  });

  it('keeps replies, edits and the notes as written on saved annotations, and names resolutions and deletions', () => {
    const { server, replica, first } = setup();
    const second = addAnnotation(server, note('to be deleted', 'ROOT %neg'));
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(server, Y.encodeStateVector(replica)));
    addReply(replica, first, 'unsaved reply', ada);
    editBody(replica, first, 'edited body');
    setResolved(replica, first, true);
    remove(replica, second);
    replica.getText(RoomKey.notes).insert(0, 'typed into the notes');
    const changes = unsavedChanges(replica, server);
    expect(changes).toEqual([
      { kind: 'edit', annotationId: first, on: '%fusion.3', body: 'edited body' },
      { kind: 'other', what: 'resolving the thread on %fusion.3' },
      { kind: 'reply', annotationId: first, on: '%fusion.3', reply: expect.objectContaining({ body: 'unsaved reply' }) as unknown },
      { kind: 'other', what: 'deleting the annotation on ROOT %neg' },
      { kind: 'text', what: 'changes to the room notes', text: 'typed into the notes' },
    ]);
  });

  it('names a deleted reply and an edited reply', () => {
    const { server, replica, first, accept } = setup();
    addReply(replica, first, 'first reply', ada);
    addReply(replica, first, 'second reply', ada);
    accept();
    const [r1, r2] = readAnnotation(annotationsMap(replica).get(first))?.replies.map((r) => r.id) ?? [];
    remove(replica, first, r1);
    editBody(replica, first, 'second reply, edited', r2);
    expect(unsavedChanges(replica, server)).toEqual([
      { kind: 'edit', annotationId: first, replyId: r2, on: '%fusion.3', body: 'second reply, edited' },
      { kind: 'other', what: 'deleting a reply on %fusion.3' },
    ]);
  });

  it('names replies, reply edits and deletions alike on an annotation of room-document version 1', () => {
    const server = new Y.Doc();
    annotationsMap(server).set('old', annotationToVersion1YMap({
      ...note('written by a version-1 client'), id: 'old', createdAt: 1, resolved: false, instruction: '%fusion.3',
      replies: [{ id: 'r1', body: 'first', author: ada, createdAt: 2 }, { id: 'r2', body: 'second', author: ada, createdAt: 3 }],
    }));
    const replica = new Y.Doc();
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(server));
    remove(replica, 'old', 'r1');
    editBody(replica, 'old', 'second, edited', 'r2');
    addReply(replica, 'old', 'third', ada);
    expect(unsavedChanges(replica, server)).toEqual([
      { kind: 'edit', annotationId: 'old', replyId: 'r2', on: '%fusion.3', body: 'second, edited' },
      { kind: 'reply', annotationId: 'old', on: '%fusion.3', reply: expect.objectContaining({ body: 'third' }) as unknown },
      { kind: 'other', what: 'deleting a reply on %fusion.3' },
    ]);
  });

  it('does not take what others wrote since for something this replica deleted', () => {
    const { server, replica } = setup();
    addAnnotation(server, note('written by someone else after the replica synced', 'ROOT %other'));
    replica.getMap(RoomKey.settings).set('title', 'renamed');
    expect(unsavedChanges(replica, server)).toEqual([{ kind: 'other', what: 'changes to the room settings' }]);
  });

  it('keeps the notes as the replica has them after a deletion the server does not have', () => {
    const { server, replica, accept } = setup();
    replica.getText(RoomKey.notes).insert(0, 'keep this');
    accept();
    replica.getText(RoomKey.notes).delete(0, 5);
    expect(unsavedChanges(replica, server)).toEqual([{ kind: 'text', what: 'changes to the room notes', text: 'this' }]);
  });

  it('keeps the notes when what was typed joined the saved text it follows', () => {
    const { server, replica, accept } = setup();
    const notes = replica.getText(RoomKey.notes);
    notes.insert(0, 'saved line. ');
    accept();
    notes.insert(notes.length, 'typed into the lock');
    // Yjs stores both runs as one item, under the saved run's id.
    expect(replica.store.clients.get(replica.clientID)?.filter((s) => s instanceof Y.Item && s.content instanceof Y.ContentString)).toHaveLength(1);
    expect(unsavedChanges(replica, server)).toEqual([{ kind: 'text', what: 'changes to the room notes', text: 'saved line. typed into the lock' }]);
  });

  it('keeps each changed program text under its name, and names a deleted program', () => {
    const { server, replica, accept } = setup();
    const programs = replica.getMap(RoomKey.programs);
    for (const name of ['mlp.py', 'attention.py', 'old.py']) programs.set(name, new Y.Text(`# ${name}\n`));
    accept();
    (programs.get('attention.py') as Y.Text).insert(0, 'import jax\n');
    (programs.get('mlp.py') as Y.Text).delete(0, 2);
    programs.delete('old.py');
    expect(unsavedChanges(replica, server)).toEqual([
      { kind: 'text', what: 'changes to the program “attention.py”', text: 'import jax\n# attention.py\n' },
      { kind: 'text', what: 'changes to the program “mlp.py”', text: 'mlp.py\n' },
      { kind: 'other', what: 'changes to the program texts' },
    ]);
  });
});

describe('rewrite', () => {
  it('writes an unsaved annotation, reply and edit again on top of the server state', () => {
    const { server, replica, first } = setup();
    const id = addAnnotation(replica, note('written into the lock', 'ROOT %neg'));
    addReply(replica, first, 'unsaved reply', ada);
    editBody(replica, first, 'edited body');
    const changes = unsavedChanges(replica, server);
    const fresh = new Y.Doc();
    Y.applyUpdate(fresh, Y.encodeStateAsUpdate(server));
    expect(changes.map((c) => rewrite(fresh, c))).toEqual([true, true, true]);
    expect(readAnnotation(annotationsMap(fresh).get(id))?.body).toBe('written into the lock');
    const kept = readAnnotation(annotationsMap(fresh).get(first));
    expect(kept?.body).toBe('edited body');
    expect(kept?.replies.map((r) => r.body)).toEqual(['unsaved reply']);
    // Written again, it is the fresh replica's own change: the server would now take it.
    expect(unsavedChanges(fresh, server).map((c) => c.kind).sort()).toEqual(['annotation', 'edit', 'reply']);
  });

  it('writes nothing for a co-edited text, which the person copies back', () => {
    const { server, replica } = setup();
    replica.getText(RoomKey.notes).insert(0, 'typed into the lock');
    const [change] = unsavedChanges(replica, server);
    const fresh = new Y.Doc();
    Y.applyUpdate(fresh, Y.encodeStateAsUpdate(server));
    expect(change && rewrite(fresh, change)).toBe(false);
    expect(fresh.getText(RoomKey.notes).toString()).toBe('');
  });

  it('writes nothing for a reply whose annotation is gone, or twice for the same annotation', () => {
    const { server, replica, first } = setup();
    addReply(replica, first, 'reply to a deleted note', ada);
    const id = addAnnotation(replica, note('once'));
    const changes = unsavedChanges(replica, server);
    const fresh = new Y.Doc();
    Y.applyUpdate(fresh, Y.encodeStateAsUpdate(server));
    remove(fresh, first);
    const annotation = changes.find((c) => c.kind === 'annotation');
    const reply = changes.find((c) => c.kind === 'reply');
    expect(reply && rewrite(fresh, reply)).toBe(false);
    expect(annotation && rewrite(fresh, annotation)).toBe(true);
    expect(annotation && rewrite(fresh, annotation)).toBe(false);
    expect([...annotationsMap(fresh).keys()]).toEqual([id]);
  });
});
