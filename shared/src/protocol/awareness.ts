import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/** One entry of a y-protocols awareness update: a client ID, its clock, and its state as JSON text. */
export interface AwarenessEntry {
  readonly clientID: number;
  readonly clock: number;
  /** The JSON text of the state, `null` when the client removes its state. */
  readonly state: string;
}

/**
 * Reads an awareness update: `varUint n`, then n × (`varUint clientID`, `varUint clock`,
 * `varString json`). Throws on truncated or trailing bytes; the JSON is checked when it is applied.
 */
export function readAwarenessEntries(update: Uint8Array): AwarenessEntry[] {
  const d = decoding.createDecoder(update);
  const n = decoding.readVarUint(d);
  // Each entry takes at least three bytes; a larger count cannot be honest.
  if (n * 3 > update.length) throw new RangeError('awareness: entry count exceeds the update length');
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < n; i++) {
    entries.push({ clientID: decoding.readVarUint(d), clock: decoding.readVarUint(d), state: decoding.readVarString(d) });
  }
  if (decoding.hasContent(d)) throw new RangeError('awareness: trailing bytes after the entries');
  return entries;
}

/** Writes entries back in the same format as {@link readAwarenessEntries} reads. */
export function writeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, entries.length);
  for (const x of entries) {
    encoding.writeVarUint(e, x.clientID);
    encoding.writeVarUint(e, x.clock);
    encoding.writeVarString(e, x.state);
  }
  return encoding.toUint8Array(e);
}

/** A raised hand, as a person's awareness state carries it under `hand`: when it went up (ms since 1970). */
export interface RaisedHand {
  readonly raisedAt: number;
}

/** The latest time a hand may say it was raised: the largest time a JavaScript date holds. */
export const MAX_HAND_TIME = 8.64e15;

/**
 * Reads the `hand` field of an awareness state strictly: `null` when absent or `null` (no hand up),
 * a hand when it is exactly `{ raisedAt }` with a positive integer time up to {@link MAX_HAND_TIME},
 * and `undefined` for anything else (extra keys, strings, fractions, negative or huge times).
 */
export function readHand(v: unknown): RaisedHand | null | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const t = (v as { raisedAt?: unknown }).raisedAt;
  if (keys.length !== 1 || keys[0] !== 'raisedAt' || typeof t !== 'number' || !Number.isSafeInteger(t) || t <= 0 || t > MAX_HAND_TIME) return undefined;
  return { raisedAt: t };
}

/**
 * Whether an awareness state's JSON text carries a well-formed hand (or none): the server applies
 * no state whose `hand` {@link readHand} refuses. Text that is not JSON is left to the awareness
 * protocol, which refuses it too.
 */
export function handIsWellFormed(stateJson: string): boolean {
  // Parsed whole, not searched for the word: `"\u0068and"` is a key `hand` too.
  let state: unknown;
  try {
    state = JSON.parse(stateJson);
  } catch {
    return true;
  }
  if (typeof state !== 'object' || state === null || !('hand' in state)) return true;
  return readHand((state as { hand: unknown }).hand) !== undefined;
}

/** A presenter's diff view, as their awareness `view.diff` carries it: the two documents compared (A the base), each pane's top line, the selected line. */
export interface DiffView {
  readonly a: string;
  readonly b: string;
  readonly topA: number;
  readonly topB: number;
  readonly selected?: { readonly side: 'a' | 'b'; readonly line: number };
}

/** Longest document id a diff view names (ids are a few dozen characters). */
export const MAX_VIEW_ID = 200;
/** Largest line number a diff view carries (far past any dump a room holds). */
export const MAX_VIEW_LINE = 1e9;

const viewId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_VIEW_ID;
const viewLine = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= MAX_VIEW_LINE;

/**
 * Reads a presenter's `view.diff` strictly: `null` when absent or `null`, the view when it is
 * exactly `{ a, b, topA, topB }` (two different ids of 1 to `MAX_VIEW_ID` characters, two integer
 * lines from 1 to `MAX_VIEW_LINE`) with an optional `selected: { side: 'a' | 'b', line }`, and
 * `undefined` for anything else (extra keys, fractions, one bad field): a follower never opens half
 * a diff.
 */
export function readDiffView(v: unknown): DiffView | null | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (!Object.keys(o).every((k) => k === 'a' || k === 'b' || k === 'topA' || k === 'topB' || k === 'selected')) return undefined;
  if (!viewId(o.a) || !viewId(o.b) || o.a === o.b || !viewLine(o.topA) || !viewLine(o.topB)) return undefined;
  const base = { a: o.a, b: o.b, topA: o.topA, topB: o.topB };
  if (o.selected === undefined) return base;
  const s = o.selected as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null || Array.isArray(s) || Object.keys(s).length !== 2 || (s.side !== 'a' && s.side !== 'b') || !viewLine(s.line)) return undefined;
  return { ...base, selected: { side: s.side, line: s.line } };
}

/**
 * Whether an awareness state's JSON text carries a well-formed `view.diff` (or none), as
 * {@link readDiffView} reads it; text that is not JSON is left to the awareness protocol.
 */
export function diffViewIsWellFormed(stateJson: string): boolean {
  let state: unknown;
  try {
    state = JSON.parse(stateJson);
  } catch {
    return true;
  }
  const view = typeof state === 'object' && state !== null ? (state as { view?: unknown }).view : undefined;
  if (typeof view !== 'object' || view === null || !('diff' in view)) return true;
  return readDiffView((view as { diff: unknown }).diff) !== undefined;
}
