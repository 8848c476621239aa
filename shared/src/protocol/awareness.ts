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
