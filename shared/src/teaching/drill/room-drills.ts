import type * as Y from 'yjs';
import { RoomKey } from '../../model/room-schema';
import type { DrillEntry } from './api';

/** The room document's server-written `drills` map: drill id → `DrillEntry` JSON. */
export function drillsMap(doc: Y.Doc): Y.Map<unknown> {
  return doc.getMap<unknown>(RoomKey.drills);
}

/** Writes (or replaces) one drill's entry; the server's, inside a room transaction. */
export function writeDrill(doc: Y.Doc, entry: DrillEntry): void {
  drillsMap(doc).set(entry.id, { ...entry });
}

const isEntry = (v: unknown): v is DrillEntry => {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Partial<DrillEntry>;
  return typeof e.id === 'string' && typeof e.docId === 'string' && typeof e.createdAt === 'number' && Array.isArray(e.questions);
};

/** Every drill of the room, newest first; entries of another shape are skipped. */
export function readDrills(doc: Y.Doc): DrillEntry[] {
  const out: DrillEntry[] = [];
  for (const v of drillsMap(doc).values()) if (isEntry(v)) out.push(v);
  return out.sort((a, b) => b.createdAt - a.createdAt);
}
