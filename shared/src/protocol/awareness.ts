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
