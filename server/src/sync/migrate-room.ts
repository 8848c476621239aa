import type * as Y from 'yjs';
import {
  annotationsMap, annotationToYMap, isVersion1Annotation, readAnnotation, ROOM_DOCUMENT_VERSION, RoomKey, roomVersion, SettingKey,
} from '@seam/shared/model';

/**
 * Whether room document `doc` must be migrated to `ROOM_DOCUMENT_VERSION` when it loads: it records
 * an older version and holds at least one well-formed version-1 annotation (one `migrateRoom` would
 * rewrite). A room that never held one (created since, only ever written by version-2 clients, or
 * holding only malformed maps, which readers skip in either form) needs nothing and records nothing.
 */
export function needsMigration(doc: Y.Doc): boolean {
  if (roomVersion(doc) >= ROOM_DOCUMENT_VERSION) return false;
  for (const [key, m] of annotationsMap(doc).entries()) if (isVersion1Annotation(m) && readAnnotation(m)?.id === key) return true;
  return false;
}

/**
 * Rewrites every well-formed version-1 annotation of `doc` in version 2 under the same key (its
 * id, body, edit time, resolution and replies kept; its old map and replies are deleted with it),
 * then records the version in `settings.version`. Call inside the transaction that stores it. A
 * malformed version-1 map is left as it is: readers skip it either way. Returns how many it rewrote.
 */
export function migrateRoom(doc: Y.Doc): number {
  const map = annotationsMap(doc);
  let rewritten = 0;
  for (const [key, m] of [...map.entries()]) {
    if (!isVersion1Annotation(m)) continue;
    const a = readAnnotation(m);
    if (!a || a.id !== key) continue;
    map.set(key, annotationToYMap(a));
    rewritten += 1;
  }
  doc.getMap(RoomKey.settings).set(SettingKey.version, ROOM_DOCUMENT_VERSION);
  return rewritten;
}
