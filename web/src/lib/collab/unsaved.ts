import * as Y from 'yjs';
import { addAnnotation, addReply, annotationsMap, readAnnotation, replyItems, RoomKey, type Annotation, type Reply } from '@seam/shared/model';
import { editBody } from './annotation-store';

/**
 * A change a replica holds that the server does not: after a refusal, what the person wrote and
 * would lose with the replica. Annotations, replies and edits keep their text so that the person
 * can write them again; a co-edited text (the notes, a program) keeps the person's whole version of
 * it, to copy back, as merging it again is theirs to judge; anything else is named.
 */
export type UnsavedChange =
  | { readonly kind: 'annotation'; readonly annotation: Annotation }
  | { readonly kind: 'reply'; readonly annotationId: string; readonly on: string; readonly reply: Reply }
  | { readonly kind: 'edit'; readonly annotationId: string; readonly replyId?: string; readonly on: string; readonly body: string }
  | { readonly kind: 'text'; readonly what: string; readonly text: string }
  | { readonly kind: 'other'; readonly what: string };

/** How the room names a change under each top-level key other than `annotations`. */
const OTHER: Readonly<Record<string, string>> = {
  [RoomKey.notes]: 'changes to the room notes',
  [RoomKey.programs]: 'changes to the program texts',
  [RoomKey.settings]: 'changes to the room settings',
  [RoomKey.presenter]: 'starting or stopping presenting',
};

/** What an annotation is called in a list of changes: its instruction, else its quoted text. */
export function annotationLabel(a: Pick<Annotation, 'instruction' | 'quote'>): string {
  const text = a.instruction ?? a.quote.exact.replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * Which structs the server has: every struct of a client below the server's clock for it (a
 * client's structs are contiguous), so anything at or past that clock exists only in the replica.
 */
function serverHas(server: Y.Doc): (id: Y.ID) => boolean {
  const sv = Y.encodeStateVector(server);
  const clocks = Y.decodeStateVector(sv);
  return (id) => id.clock < (clocks.get(id.client) ?? 0);
}

/** The top-level key an item lives under, e.g. `notes` for a character typed into the notes. */
function rootKeyOf(doc: Y.Doc, item: Y.Item): string | undefined {
  let type = item.parent;
  while (type instanceof Y.AbstractType && type._item) type = type._item.parent;
  for (const [key, root] of doc.share) if (root === type) return key;
  return undefined;
}

/**
 * The co-edited text an item belongs to, under `notes` or `programs`, with how the room names
 * changes to it; undefined for any other part of the room, or a program the replica deleted.
 */
function coEditedText(doc: Y.Doc, item: Y.Item, key: string | undefined): { what: string; text: Y.Text } | undefined {
  if (key === RoomKey.notes) return { what: OTHER[RoomKey.notes] ?? key, text: doc.getText(RoomKey.notes) };
  if (key !== RoomKey.programs) return undefined;
  const programs = doc.getMap(RoomKey.programs);
  let child: Y.Item | null = item;
  while (child && child.parent !== programs) child = child.parent instanceof Y.AbstractType ? child.parent._item : null;
  const name = child?.parentSub;
  const text = name ? programs.get(name) : undefined;
  return name && text instanceof Y.Text ? { what: `changes to the program “${name}”`, text } : undefined;
}

/**
 * Every item of `replica` the server lacks in whole or in part (Yjs merges text typed after saved
 * text into the saved item, so its last clock decides), and every deletion of an item the server
 * holds live.
 */
function unsavedItems(replica: Y.Doc, server: Y.Doc, has: (id: Y.ID) => boolean): Y.Item[] {
  const items: Y.Item[] = [];
  for (const structs of replica.store.clients.values()) {
    for (const s of structs) if (s instanceof Y.Item && !has(Y.createID(s.id.client, s.id.clock + s.length - 1))) items.push(s);
  }
  const serverDeleted = Y.snapshot(server).ds;
  replica.transact((tr) => {
    Y.iterateDeletedStructs(tr, Y.snapshot(replica).ds, (s) => {
      if (s instanceof Y.Item && has(s.id) && !Y.isDeleted(serverDeleted, s.id)) items.push(s);
    });
  });
  return items;
}

/** The annotation changes of `replica` that `server` lacks: new annotations, replies, edits, resolutions, deletions. */
function annotationChanges(replica: Y.Doc, server: Y.Doc, has: (id: Y.ID) => boolean): UnsavedChange[] {
  const out: UnsavedChange[] = [];
  const mine = annotationsMap(replica);
  const saved = annotationsMap(server);
  const isNewField = (m: Y.Map<unknown>, key: string) => {
    const field = m._map.get(key);
    return field !== undefined && !field.deleted && !has(field.id);
  };
  for (const m of mine.values()) {
    const a = readAnnotation(m);
    if (!a) continue;
    if (m._item !== null && !has(m._item.id)) {
      out.push({ kind: 'annotation', annotation: a });
      continue;
    }
    const on = annotationLabel(a);
    if (isNewField(m, 'body')) out.push({ kind: 'edit', annotationId: a.id, on, body: a.body });
    if (isNewField(m, 'resolved')) out.push({ kind: 'other', what: `${a.resolved ? 'resolving' : 'reopening'} the thread on ${on}` });
    const savedReplies = new Set(readAnnotation(saved.get(a.id))?.replies.map((r) => r.id));
    for (const reply of a.replies) {
      const items = replyItems(m, reply.id);
      if (!items || has(items.body.id)) continue;
      if (savedReplies.has(reply.id)) out.push({ kind: 'edit', annotationId: a.id, replyId: reply.id, on, body: reply.body });
      else out.push({ kind: 'reply', annotationId: a.id, on, reply });
    }
  }
  // Known to the replica (it has every struct up to this one's clock) yet gone there: deleted locally.
  const known = (item: Y.Item | null | undefined) => !!item && item.id.clock < Y.getState(replica.store, item.id.client);
  for (const [id, m] of saved) {
    const a = readAnnotation(m);
    if (!a) continue;
    const kept = mine.get(id);
    if (!kept) {
      if (known(m._item)) out.push({ kind: 'other', what: `deleting the annotation on ${annotationLabel(a)}` });
      continue;
    }
    const keptReplies = new Set(readAnnotation(kept)?.replies.map((r) => r.id));
    const deleted = a.replies.filter((r) => known(replyItems(m, r.id)?.whole) && !keptReplies.has(r.id)).length;
    if (deleted > 0) out.push({ kind: 'other', what: `deleting ${deleted === 1 ? 'a reply' : `${deleted} replies`} on ${annotationLabel(a)}` });
  }
  return out;
}

/**
 * What `replica` holds that `server` (a fresh replica synced from the server) does not, as the
 * person would name it: every annotation, reply and edit with its text, then one line per other
 * part of the room that has unsaved changes. Empty when the server has everything.
 */
export function unsavedChanges(replica: Y.Doc, server: Y.Doc): UnsavedChange[] {
  const has = serverHas(server);
  const out = annotationChanges(replica, server, has);
  const texts = new Map<string, Y.Text>();
  const others = new Set<string>();
  for (const item of unsavedItems(replica, server, has)) {
    const key = rootKeyOf(replica, item);
    if (key === RoomKey.annotations) continue;
    const t = coEditedText(replica, item, key);
    if (t) texts.set(t.what, t.text);
    else others.add(OTHER[key ?? ''] ?? 'other changes to the room');
  }
  for (const [what, text] of texts) out.push({ kind: 'text', what, text: text.toString() });
  for (const what of others) out.push({ kind: 'other', what });
  return out;
}

/**
 * Writes an unsaved annotation (with its id, replies and time), reply or edit again into `doc`, as
 * the person's new change. False, writing nothing, for a `text` or `other` change and when the annotation or
 * reply it belongs to is not in `doc`.
 */
export function rewrite(doc: Y.Doc, change: UnsavedChange): boolean {
  if (change.kind === 'annotation') {
    if (annotationsMap(doc).has(change.annotation.id)) return false;
    addAnnotation(doc, change.annotation);
    return true;
  }
  if (change.kind === 'other' || change.kind === 'text') return false;
  const target = readAnnotation(annotationsMap(doc).get(change.annotationId));
  if (!target) return false;
  if (change.kind === 'reply') return addReply(doc, change.annotationId, change.reply);
  if (change.replyId !== undefined && !target.replies.some((r) => r.id === change.replyId)) return false;
  editBody(doc, change.annotationId, change.body, change.replyId);
  return true;
}
