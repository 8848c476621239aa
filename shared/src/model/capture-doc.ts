import type * as Y from 'yjs';
import type { CaptureEntry } from './jobs';
import { RoomKey } from './room-schema';

/**
 * One value of the room document's server-written `captures` map as a `CaptureEntry`, or `null`
 * when it has no status or entry; `args` and `documents` default to empty lists.
 */
export function readCaptureEntry(id: string, raw: unknown): CaptureEntry | null {
  if (!raw || typeof raw !== 'object') return null;
  const e = raw as Partial<CaptureEntry>;
  if (typeof e.status !== 'string' || typeof e.entry !== 'string') return null;
  return { ...(e as CaptureEntry), id, documents: Array.isArray(e.documents) ? e.documents : [], args: Array.isArray(e.args) ? e.args : [] };
}

/** Every readable entry of a room document's `captures` map, in map order. */
export function readCaptures(doc: Y.Doc): CaptureEntry[] {
  const out: CaptureEntry[] = [];
  for (const [id, raw] of doc.getMap<unknown>(RoomKey.captures)) {
    const e = readCaptureEntry(id, raw);
    if (e) out.push(e);
  }
  return out;
}
