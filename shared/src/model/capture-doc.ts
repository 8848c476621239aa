import type * as Y from 'yjs';
import type { CaptureEntry, CarriedCounts } from './jobs';
import { RoomKey } from './room-schema';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function readCarriedCounts(v: unknown): CarriedCounts | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  return isCount(o.annotations) && isCount(o.detached) && isCount(o.notCarried) && o.detached <= o.annotations
    ? { annotations: o.annotations, detached: o.detached, notCarried: o.notCarried }
    : undefined;
}

/**
 * One value of the room document's server-written `captures` map as a `CaptureEntry`, or `null`
 * when it has no status or entry; `args` and `documents` default to empty lists. The version
 * fields are kept only when well formed (`versionOf` a string with `version` an integer from 2,
 * `carried` three counts).
 */
export function readCaptureEntry(id: string, raw: unknown): CaptureEntry | null {
  if (!raw || typeof raw !== 'object') return null;
  const e = raw as Partial<CaptureEntry>;
  if (typeof e.status !== 'string' || typeof e.entry !== 'string') return null;
  const { versionOf, version, carried, ...rest } = e;
  const versioned = typeof versionOf === 'string' && versionOf !== '' && versionOf !== id && Number.isInteger(version) && (version as number) >= 2;
  const counts = readCarriedCounts(carried);
  return {
    ...(rest as CaptureEntry), id, documents: Array.isArray(e.documents) ? e.documents : [], args: Array.isArray(e.args) ? e.args : [],
    ...(versioned ? { versionOf, version } : {}),
    ...(counts ? { carried: counts } : {}),
  };
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
