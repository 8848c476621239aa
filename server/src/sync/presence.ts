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

/**
 * Which live connection owns which awareness client ID in one room. An ID is taken by the first
 * connection that sends news for it while no other live connection owns it; from then on only
 * that connection may set or remove that ID's state, until it leaves.
 */
export class PresenceClaims<C> {
  private readonly owners = new Map<number, C>();
  private readonly byConn = new Map<C, Set<number>>();

  /** The connection that owns `clientID`, if any. */
  ownerOf(clientID: number): C | undefined {
    return this.owners.get(clientID);
  }

  /** Gives the unowned `clientID` to `conn`. */
  take(conn: C, clientID: number): void {
    this.owners.set(clientID, conn);
    let ids = this.byConn.get(conn);
    if (!ids) this.byConn.set(conn, (ids = new Set()));
    ids.add(clientID);
  }

  /** Releases every ID `conn` owns and returns them (their states are the caller's to remove). */
  release(conn: C): number[] {
    const ids = [...(this.byConn.get(conn) ?? [])];
    this.byConn.delete(conn);
    for (const id of ids) this.owners.delete(id);
    return ids;
  }
}
