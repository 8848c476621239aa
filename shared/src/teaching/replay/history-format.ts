/**
 * A room's replay history as `GET /api/rooms/:id/history` sends it (docs/protocol.md): NDJSON, one
 * line per entry. The first page opens with a `start` line (the document as it was when the
 * history starts, and when that was); then `update` lines (a committed Yjs update, base64) and
 * `presenter` lines (where the presenter was), in commit order; a full page ends with a `more`
 * line whose `next` is the cursor of the following page.
 */

/** Most entries one page of history carries. */
export const MAX_HISTORY_PAGE = 2000;
/** The latest time a history range may name: the largest time a JavaScript date holds. */
export const MAX_HISTORY_TIME = 8.64e15;
/** Longest document id a presenter sample names. */
export const MAX_SAMPLE_ID = 200;
/** Largest line or offset a presenter sample carries. */
export const MAX_SAMPLE_NUMBER = 1e9;
/** Longest presenter name a sample keeps. */
export const MAX_SAMPLE_NAME = 40;

/** Where the presenter was: the open document (none on the room's overview), its top line and selection. */
export interface PresenterSample {
  readonly docId: string | null;
  readonly topLine: number;
  readonly anchor: number;
  readonly head: number;
  readonly userId: string;
  readonly name: string;
}

export type HistoryLine =
  | { readonly type: 'start'; readonly startsAt: number; readonly endsAt: number; readonly dropped: boolean; readonly base: string }
  | { readonly type: 'update'; readonly id: number; readonly at: number; readonly data: string }
  /** `view` is `null` once nobody presents. */
  | { readonly type: 'presenter'; readonly id: number; readonly at: number; readonly view: PresenterSample | null }
  | { readonly type: 'more'; readonly next: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown, max: number, min = 0): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
const time = (v: unknown): v is number => count(v, MAX_HISTORY_TIME);

/**
 * Reads a presenter sample strictly: exactly the six fields, a document id of 1 to
 * `MAX_SAMPLE_ID` characters or `null`, integer lines and offsets (top line from 1); `undefined`
 * for anything else.
 */
export function readPresenterSample(v: unknown): PresenterSample | undefined {
  if (!isObj(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 6) return undefined;
  const { docId, topLine, anchor, head, userId, name } = v;
  if (docId !== null && (typeof docId !== 'string' || docId.length === 0 || docId.length > MAX_SAMPLE_ID)) return undefined;
  if (!count(topLine, MAX_SAMPLE_NUMBER, 1) || !count(anchor, MAX_SAMPLE_NUMBER) || !count(head, MAX_SAMPLE_NUMBER)) return undefined;
  if (typeof userId !== 'string' || userId.length > MAX_SAMPLE_ID || typeof name !== 'string' || name.length > MAX_SAMPLE_NAME) return undefined;
  return { docId, topLine, anchor, head, userId, name };
}

/** Reads one NDJSON line of history; `undefined` for a line that is not exactly one of the four forms. */
export function readHistoryLine(line: string): HistoryLine | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObj(v)) return undefined;
  switch (v.type) {
    case 'start':
      return time(v.startsAt) && time(v.endsAt) && typeof v.dropped === 'boolean' && typeof v.base === 'string'
        ? { type: 'start', startsAt: v.startsAt, endsAt: v.endsAt, dropped: v.dropped, base: v.base }
        : undefined;
    case 'update':
      return count(v.id, Number.MAX_SAFE_INTEGER, 1) && time(v.at) && typeof v.data === 'string' ? { type: 'update', id: v.id, at: v.at, data: v.data } : undefined;
    case 'presenter': {
      if (!count(v.id, Number.MAX_SAFE_INTEGER, 1) || !time(v.at)) return undefined;
      if (v.view === null) return { type: 'presenter', id: v.id, at: v.at, view: null };
      const view = readPresenterSample(v.view);
      return view ? { type: 'presenter', id: v.id, at: v.at, view } : undefined;
    }
    case 'more':
      return typeof v.next === 'string' && v.next.length > 0 && v.next.length <= 64 ? { type: 'more', next: v.next } : undefined;
    default:
      return undefined;
  }
}
