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
