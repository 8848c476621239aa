import { createHash } from 'node:crypto';
import * as Y from 'yjs';
import { mayWrite, type Role } from '@seam/shared/model';
import { RefusalCode } from '@seam/shared/protocol';
import { rootOfIntegrated, type Verdict } from './guard';

/**
 * The client ID the server writes room `roomId` with (REST writes, ingest, job status): the same at
 * every load, derived from the room's id, so that it stays the server's after the room is unloaded,
 * compacted and loaded again without being stored anywhere. In scaled mode each instance writes
 * with its own (`instanceId` given): two instances writing one client ID would number different
 * changes with the same clocks, and Yjs would keep only one of each.
 */
export function serverClientId(roomId: string, instanceId?: string): number {
  const name = instanceId === undefined ? `seam room server ${roomId}` : `seam room server ${roomId} instance ${instanceId}`;
  return createHash('sha256').update(name).digest().readUInt32BE(0);
}

/** What the claims need to know of a connection. */
export interface Writer {
  readonly role: Role;
  /** Hex SHA-256 of the token it authenticated with. */
  readonly tokenHash: string;
}

/**
 * Which live connection writes with which Yjs client ID in one room. A client ID belongs to the
 * first connection whose update with it is accepted, while that connection lives; the server's own
 * ID (`doc.clientID`) belongs to nobody else, ever. An ID another live connection holds is refused,
 * unless both authenticated with the same token: a client that reconnects before the server has
 * noticed its old socket is dead sends its offline edits with the same ID, and a token is the
 * most the server knows of who is behind a socket. Before a connection takes an ID, the document
 * is searched for what that ID has written: an ID with items under a key the connection's role
 * may not write (settings or presenter for an annotator, the server-only keys for anyone)
 * belongs to a stronger writer, whether or not it is live, and is refused. That search reads the
 * stored document, so it holds after compaction and reload.
 */
export class WriterClaims<C extends Writer> {
  private readonly owners = new Map<number, C>();
  private readonly byConn = new Map<C, Set<number>>();
  /** Other instances' server client IDs for this room (scaled mode): nobody's, ever, like `doc.clientID`. */
  private readonly servers = new Set<number>();

  constructor(private readonly doc: Y.Doc) {}

  /** The connection that holds `clientID`, if any. */
  ownerOf(clientID: number): C | undefined {
    return this.owners.get(clientID);
  }

  /**
   * Checks the client IDs of an accepted verdict against the claims and, when `conn` may use them
   * all, gives it those it does not hold yet. Returns the verdict, or a `client-taken` refusal.
   */
  admit(conn: C, verdict: Verdict): Verdict {
    if (!verdict.ok || verdict.noop) return verdict;
    for (const client of verdict.clients) {
      if (!this.mayUse(conn, client)) return { ok: false, reason: RefusalCode.clientTaken };
    }
    for (const client of verdict.clients) this.take(conn, client);
    return verdict;
  }

  /**
   * Marks `clientID` as another instance's server client ID (scaled mode: learnt from that
   * instance's bus messages): refused to every connection from now on. A connection that holds it
   * already loses it (its next write with it is refused).
   */
  reserve(clientID: number): void {
    this.servers.add(clientID);
    const owner = this.owners.get(clientID);
    if (owner === undefined) return;
    this.owners.delete(clientID);
    this.byConn.get(owner)?.delete(clientID);
  }

  /** Releases every ID `conn` holds (when it closes). */
  release(conn: C): void {
    for (const client of this.byConn.get(conn) ?? []) {
      if (this.owners.get(client) === conn) this.owners.delete(client);
    }
    this.byConn.delete(conn);
  }

  private mayUse(conn: C, client: number): boolean {
    if (client === this.doc.clientID || this.servers.has(client)) return false;
    const owner = this.owners.get(client);
    if (owner === conn) return true;
    if (owner !== undefined && owner.tokenHash !== conn.tokenHash) return false;
    return !this.wroteBeyond(client, conn.role);
  }

  /** Whether `client` has items in the document under a key `role` may never write. */
  private wroteBeyond(client: number, role: Role): boolean {
    for (const s of this.doc.store.clients.get(client) ?? []) {
      if (!(s instanceof Y.Item)) continue;
      const root = rootOfIntegrated(s);
      if (root !== undefined && !mayWrite(role, root, false)) return true;
    }
    return false;
  }

  private take(conn: C, client: number): void {
    const owner = this.owners.get(client);
    if (owner === conn) return;
    if (owner !== undefined) this.byConn.get(owner)?.delete(client);
    this.owners.set(client, conn);
    let ids = this.byConn.get(conn);
    if (!ids) this.byConn.set(conn, (ids = new Set()));
    ids.add(client);
  }
}
