import * as decoding from 'lib0/decoding';
import { CloseCode, diffViewIsWellFormed, handIsWellFormed, readAwarenessEntries, type AwarenessEntry } from '@seam/shared/protocol';
import type { Limits } from '../config';

/** An awareness update's entries, or the close code for an update too big to apply. */
export type BoundedAwareness = { readonly ok: true; readonly entries: AwarenessEntry[] } | { readonly ok: false; readonly close: CloseCode };

/**
 * Reads an awareness update within the limits: more entries than every socket of a full room could
 * own (`connectionsPerRoom` × `awarenessClientsPerSocket`, what a stock client echoing the whole
 * room sends) is refused from the count alone with `rateLimited`, before anything is decoded; a
 * state longer than `awarenessStateBytes` with `messageTooBig`; a state whose raised `hand` is not
 * exactly `{ raisedAt }`, or whose presenter's `view.diff` is malformed, with `malformedMessage`
 * (nothing of the update is applied). Throws for bytes that are not an
 * awareness update.
 */
export function readBoundedAwareness(update: Uint8Array, limits: Pick<Limits, 'connectionsPerRoom' | 'awarenessClientsPerSocket' | 'awarenessStateBytes'>): BoundedAwareness {
  const count = decoding.readVarUint(decoding.createDecoder(update));
  if (count > limits.connectionsPerRoom * limits.awarenessClientsPerSocket) return { ok: false, close: CloseCode.rateLimited };
  const entries = readAwarenessEntries(update);
  if (entries.some((e) => e.state.length > limits.awarenessStateBytes)) return { ok: false, close: CloseCode.messageTooBig };
  if (!entries.every((e) => handIsWellFormed(e.state) && diffViewIsWellFormed(e.state))) return { ok: false, close: CloseCode.malformedMessage };
  return { ok: true, entries };
}

/**
 * Which live connection owns which awareness client ID in one room. An ID is taken by the first
 * connection that sends news for it while no other live connection owns it; from then on only
 * that connection may set or remove that ID's state, until it leaves. One connection owns at most
 * `maxPerConn` IDs (a stock client needs one).
 */
export class PresenceClaims<C> {
  private readonly owners = new Map<number, C>();
  private readonly byConn = new Map<C, Set<number>>();

  constructor(private readonly maxPerConn = Infinity) {}

  /** The connection that owns `clientID`, if any. */
  ownerOf(clientID: number): C | undefined {
    return this.owners.get(clientID);
  }

  /** Gives the unowned `clientID` to `conn`; false, giving nothing, when `conn` owns `maxPerConn` IDs already. */
  take(conn: C, clientID: number): boolean {
    let ids = this.byConn.get(conn);
    if (!ids) this.byConn.set(conn, (ids = new Set()));
    if (ids.size >= this.maxPerConn) return false;
    this.owners.set(clientID, conn);
    ids.add(clientID);
    return true;
  }

  /** Releases every ID `conn` owns and returns them (their states are the caller's to remove). */
  release(conn: C): number[] {
    const ids = [...(this.byConn.get(conn) ?? [])];
    this.byConn.delete(conn);
    for (const id of ids) this.owners.delete(id);
    return ids;
  }
}
