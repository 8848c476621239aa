import * as Y from 'yjs';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as decoding from 'lib0/decoding';
import type { Logger } from 'pino';
import { CloseCode, encodeAck, encodeAwarenessMessage, encodeRefused, encodeSyncMessage, MessageType, writeAwarenessEntries } from '@seam/shared/protocol';
import type { Limits } from '../config';
import type { Metrics } from '../metrics';
import type { UpdatesStore } from '../store';
import type { ReplayHistory, RoomLog } from '../store/shared-store';
import type { StoredRoomState } from '../store/updates-store';
import { RoomHistory } from '../teaching/replay/room-history';
import { BusKind, type BusFrame } from './bus/frame';
import type { RoomBus } from './bus/room-bus';
import { Connection } from './connection';
import type { GroupCommit } from './group-commit';
import { checkUpdate } from './guard';
import { ItemVerdict } from './item-budget';
import { migrateRoom, needsMigration } from './migrate-room';
import { PresenceClaims, readBoundedAwareness } from './presence';
import { serverClientId, WriterClaims } from './writers';

/** Sync sub-messages of y-protocols. */
const SyncStep1 = 0;
const SyncStep2 = 1;
const SyncUpdate = 2;

/** Origin of changes made by the server itself (REST writes, ingest). */
export const SERVER_ORIGIN = Symbol('server');
const LOAD_ORIGIN = Symbol('load');
/** Origin of what came from another instance over the bus (or a resync from the shared log): committed already, relayed, never queued. */
export const BUS_ORIGIN = Symbol('bus');

/**
 * A room whose log has passed a compaction threshold compacts once it has gone this long without
 * a commit (ms): a snapshot encodes the whole document (about 27 ms for 2,000 annotations), which
 * would otherwise stall the event loop between two updates of a busy room.
 */
export const COMPACT_IDLE_MS = 1000;
/** A room that never goes idle still compacts once its log passes this many times a threshold. */
export const COMPACT_FORCE_FACTOR = 4;
/** Scaled mode: the least time (ms) between two reads of the log that fill a gap in what the bus brought. */
export const FILL_GAP_MS = 250;

/** A room's state as loaded from its log: snapshot, the rows after it, and the id of the last one. */
export type LoadedRoomState = StoredRoomState & { readonly lastId: number };

/**
 * A server write (`room.transact`) whose commit failed: nothing of it is stored. `cause` is the
 * store's error (`StoreUnavailableError` when the shared store could not be reached).
 */
export class RoomCommitError extends Error {
  override readonly name = 'RoomCommitError';
  constructor(roomId: string, cause?: unknown) {
    super(`room ${roomId} could not commit`, cause === undefined ? undefined : { cause });
  }
}

/** Thrown by the message reader for a frame that is not a valid message. */
export class MalformedMessage extends Error {
  override name = 'MalformedMessage';
}

/** A commit's acknowledgements, encoded when its batch was taken: they hold what was queued then. */
interface DueAck {
  readonly conn: Connection;
  readonly msg: Uint8Array;
}

/** A caller waiting until everything queued up to `seq` is committed. */
interface Waiter {
  readonly seq: number;
  resolve(): void;
  reject(err: Error): void;
}

/** One queued change of a room and who made it (a connection, or the server). */
export interface PendingUpdate {
  readonly update: Uint8Array;
  readonly origin: unknown;
}

export interface RoomDeps {
  readonly updates: UpdatesStore;
  /** The group commit this room's queue goes through, shared by all loaded rooms. */
  readonly commits: GroupCommit;
  readonly metrics: Metrics;
  readonly limits: Limits;
  readonly compactCount: number;
  readonly compactBytes: number;
  readonly log: Logger;
  /**
   * Scaled mode: the shared log the group commit appends to. Compaction then builds the snapshot
   * from the log itself, not from memory: rows other instances committed may not have reached
   * this one yet, and a snapshot through an id must hold every row up to it.
   */
  readonly roomLog?: RoomLog;
  /** Carries committed updates and awareness to the other instances holding the room. */
  readonly bus?: RoomBus;
  /** Scaled mode: the shared replay history presenter samples go to. Absent: `updates.history`. */
  readonly history?: ReplayHistory;
}

function expectEnd(d: decoding.Decoder): void {
  if (decoding.hasContent(d)) throw new MalformedMessage('trailing bytes after message');
}

/**
 * One loaded room: its Y.Doc, awareness and sockets. Every change (a client's update or a server
 * transaction) is queued, committed to the log at the end of the tick (or once the group has been
 * open `GROUP_OPEN_MS`) together with the other rooms' queues (`GroupCommit`), and only then
 * broadcast and acknowledged. A joining client's sync step 1 is answered after the queue is
 * committed, so nobody ever sees data that is not on disk.
 */
export class Room {
  readonly doc = new Y.Doc();
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  readonly conns = new Set<Connection>();
  /** Which socket owns which awareness client ID: nobody sets or removes another socket's presence. */
  private readonly claims: PresenceClaims<Connection>;
  /** Which socket writes with which Yjs client ID: nobody writes with another's, or the server's. */
  private readonly writers = new WriterClaims<Connection>(this.doc);
  /** True once a commit failed; the room is then closed and reloaded from disk on next use. */
  broken = false;
  /** True once unloaded: late answers (a resync, a catch-up) change nothing. */
  private destroyed = false;
  /** True while this room's batch is in a commit that has not answered (the shared store only). */
  committing = false;
  private pending: PendingUpdate[] = [];
  private readonly ackDue = new Set<Connection>();
  private scheduled = false;
  /** Updates queued so far, and how many of them are committed: what `settled` waits on. */
  private queuedSeq = 0;
  private committedSeq = 0;
  /**
   * The batch in the commit now: how far it reaches in the queue, the acks it owes, and the
   * answers to sync step 1 requests that waited for it (encoded when it was taken, so that they
   * hold exactly what it makes durable).
   */
  private taken: { seq: number; acks: DueAck[]; step2s: DueAck[] } | undefined;
  private readonly waiters: Waiter[] = [];
  /** Scaled mode: while the room catches up from the log, every socket's messages wait here in order. */
  private held: { conn: Connection; data: Uint8Array }[] | undefined;
  /** Sockets the room has caught up for already. */
  private readonly caughtUpFor = new WeakSet<Connection>();
  /** A read of the log to fill a gap is under way (`again`: another gap was seen meanwhile). */
  private filling: { again: boolean } | undefined;
  /** When the last read to fill a gap ended (ms), and the timer of the next one while it must wait. */
  private filledAt = -Infinity;
  private fillTimer: NodeJS.Timeout | undefined;
  /** Sync step 1 requests that wait for the next batch's commit (the shared store only). */
  private step1Waiting: { conn: Connection; payload: Uint8Array }[] = [];
  /** Why the room broke: the failed commit's error. */
  private failure: unknown;
  /**
   * Set when the load's migration commits asynchronously (the shared store): `Rooms.load` waits
   * for it, so nobody joins before the room is migrated.
   */
  ready: Promise<void> | undefined;
  private lastId = 0;
  private logCount = 0;
  private logBytes = 0;
  private storedBytes = 0;
  /** `Y.encodeStateAsUpdate(doc)` while the doc is unchanged: what every fresh client's step 2 holds. */
  private fullState: Uint8Array | undefined;
  /** Set while a compaction waits for the room to be idle; every commit pushes it back. */
  private compactTimer: NodeJS.Timeout | undefined;
  /** The room's replay history: presenter samples and its bounds (docs/storage.md). */
  private readonly history: RoomHistory;

  /** `state` is the room's stored state, loaded by the caller (`Rooms.load`); by default read from `deps.updates` now. */
  constructor(
    readonly id: string,
    private readonly deps: RoomDeps,
    state: LoadedRoomState = deps.updates.load(id),
  ) {
    this.claims = new PresenceClaims<Connection>(deps.limits.awarenessClientsPerSocket);
    this.awareness.setLocalState(null);
    Y.transact(this.doc, () => {
      if (state.snapshot) Y.applyUpdate(this.doc, state.snapshot, LOAD_ORIGIN);
      for (const u of state.updates) Y.applyUpdate(this.doc, u, LOAD_ORIGIN);
    }, LOAD_ORIGIN);
    // After the load: Yjs gives a document a new client ID when a remote update writes with its own.
    this.doc.clientID = serverClientId(id, deps.roomLog ? deps.bus?.instanceId : undefined);
    this.lastId = state.lastId;
    this.logCount = state.updates.length;
    this.logBytes = state.logBytes;
    this.storedBytes = (state.snapshot?.length ?? 0) + state.logBytes;
    this.doc.on('update', this.onUpdate);
    this.awareness.on('update', this.onAwareness);
    this.history = new RoomHistory({ roomId: id, doc: this.doc, awareness: this.awareness, store: deps.history ?? deps.updates.history, limits: deps.limits, log: deps.log });
    // A room of an older room-document version is migrated once, on load, as one stored server write.
    // The embedded store commits it before the constructor returns (a failure throws here); the
    // shared store's commit is awaited through `ready`.
    if (needsMigration(this.doc)) {
      let annotations = 0;
      const done = this.transact((doc) => (annotations = migrateRoom(doc)));
      if (this.broken) {
        done.catch(() => undefined);
        throw new RoomCommitError(id, this.failure);
      }
      const logged = () => deps.log.info({ room: id, annotations }, 'room document migrated');
      if (this.committedSeq >= this.queuedSeq) logged();
      else this.ready = done.then(logged);
    }
  }

  /** Queues what a server transaction changed (Yjs encodes it for this listener). */
  private readonly onUpdate = (update: Uint8Array, origin: unknown): void => {
    if (origin === BUS_ORIGIN) this.relay(update);
    else if (origin !== LOAD_ORIGIN) this.queue(update, origin);
  };

  /** What another instance committed (Yjs hands over only what was new here): relayed to every socket, counted as stored. */
  private relay(update: Uint8Array): void {
    this.fullState = undefined;
    this.logCount += 1;
    this.logBytes += update.length;
    this.storedBytes += update.length;
    const msg = encodeSyncMessage(SyncUpdate, update);
    for (const c of this.conns) c.send(msg);
    this.deps.metrics.updatesOut.inc(this.conns.size);
  }

  /**
   * A message of this room from another instance: a committed update is applied (and so relayed,
   * never queued nor stored again); awareness is applied and relayed, never stored; a query is
   * answered with the awareness states of this instance's sockets. The sender holds the room and
   * may write it with its server client ID, which from now on no socket may write with.
   */
  fromBus(frame: BusFrame): void {
    if (this.broken || this.destroyed) return;
    this.knowInstance(frame.origin);
    try {
      if (frame.kind === BusKind.update) {
        Y.applyUpdate(this.doc, frame.data, BUS_ORIGIN);
        if (this.hasGap()) this.fillGap();
      } else if (frame.kind === BusKind.awareness) awarenessProtocol.applyAwarenessUpdate(this.awareness, frame.data, BUS_ORIGIN);
      else if (frame.kind === BusKind.query) this.answerQuery();
    } catch (err) {
      this.deps.log.warn({ err, room: this.id }, 'bus message not applied');
    }
  }

  /** Another instance holds (or has held) this room: no socket may write with its server client ID. */
  knowInstance(instanceId: string): void {
    this.writers.reserve(serverClientId(this.id, instanceId));
  }

  /**
   * Publishes the awareness states of this instance's sockets, for an instance that has just
   * loaded the room (the states other instances relayed here are theirs to answer). An empty
   * answer is still sent: it tells the asker this instance's server client ID.
   */
  private answerQuery(): void {
    const own = [...this.awareness.getStates().keys()].filter((id) => this.claims.ownerOf(id) !== undefined);
    void this.deps.bus?.publish(this.id, BusKind.awareness, awarenessProtocol.encodeAwarenessUpdate(this.awareness, own));
  }

  /** Whether Yjs holds updates back for want of earlier ones (a gap in what this instance has heard). */
  private hasGap(): boolean {
    return this.doc.store.pendingStructs !== null || this.doc.store.pendingDs !== null;
  }

  /**
   * Fills a gap from the log. An instance that dies may have committed updates it never published;
   * what its clients write next, elsewhere, follows them, and Yjs holds it back here until they
   * come, which over the bus they never do. The log has them. A gap from messages of two instances
   * arriving out of order closes by itself; reading the log then changes nothing. One read at a
   * time and at most one every `FILL_GAP_MS`; a gap still open after it starts another.
   */
  private fillGap(): void {
    const roomLog = this.deps.roomLog;
    if (!roomLog || this.destroyed) return;
    if (this.filling) {
      this.filling.again = true;
      return;
    }
    if (this.fillTimer) return;
    const wait = this.filledAt + FILL_GAP_MS - performance.now();
    if (wait > 0) {
      this.fillTimer = setTimeout(() => {
        this.fillTimer = undefined;
        if (this.hasGap()) this.fillGap();
      }, wait);
      this.fillTimer.unref();
      return;
    }
    const filling = (this.filling = { again: false });
    roomLog.load(this.id).then((state) => this.applyStored(state), (err: unknown) => this.deps.log.warn({ err, room: this.id }, 'filling a gap from the log failed'))
      .finally(() => {
        this.filling = undefined;
        this.filledAt = performance.now();
        if (filling.again && this.hasGap()) this.fillGap();
      });
  }

  /** A resync: the room's stored state, read again from the log, applied (what is known already changes nothing). Never throws. */
  applyStored(state: StoredRoomState): void {
    if (this.broken || this.destroyed) return;
    try {
      Y.transact(this.doc, () => {
        if (state.snapshot) Y.applyUpdate(this.doc, state.snapshot, BUS_ORIGIN);
        for (const u of state.updates) Y.applyUpdate(this.doc, u, BUS_ORIGIN);
      }, BUS_ORIGIN);
    } catch (err) {
      this.deps.log.warn({ err, room: this.id }, 'stored state not applied');
    }
  }

  private queue(update: Uint8Array, origin: unknown): void {
    this.fullState = undefined;
    this.pending.push({ update, origin });
    this.queuedSeq += 1;
    this.schedule();
  }

  /**
   * Applies a client's checked update and queues it as received: the guard has found every new
   * struct's parent in the document or the update itself, so Yjs integrates all of it, and its
   * own encoding of the transaction (what the `update` listener costs: a fifth of the apply) would
   * hold the same changes. Should Yjs throw part-way (it reads the delete set after integrating
   * the structs), what it did apply is queued as the listener would have queued it.
   */
  private applyChecked(conn: Connection, payload: Uint8Array, clients: readonly number[]): void {
    const before = clients.map((c) => Y.getState(this.doc.store, c));
    this.doc.off('update', this.onUpdate);
    try {
      Y.applyUpdate(this.doc, payload, conn);
    } catch (err) {
      const sv = Y.decodeStateVector(Y.encodeStateVector(this.doc));
      clients.forEach((c, i) => sv.set(c, before[i] ?? 0));
      this.queue(Y.encodeStateAsUpdate(this.doc, Y.encodeStateVector(sv)), conn);
      throw err;
    } finally {
      this.doc.on('update', this.onUpdate);
    }
    this.queue(payload, conn);
  }

  private readonly onAwareness = (ch: { added: number[]; updated: number[]; removed: number[] }, origin: unknown): void => {
    const update = awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...ch.added, ...ch.updated, ...ch.removed]);
    const msg = encodeAwarenessMessage(update);
    for (const c of this.conns) c.send(msg);
    if (origin !== BUS_ORIGIN) void this.deps.bus?.publish(this.id, BusKind.awareness, update);
  };

  /** Adds a socket and starts the sync handshake (server step 1, then known awareness). */
  join(conn: Connection): void {
    this.conns.add(conn);
    conn.send(encodeSyncMessage(SyncStep1, Y.encodeStateVector(this.doc)));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) conn.send(encodeAwarenessMessage(awarenessProtocol.encodeAwarenessUpdate(this.awareness, states)));
  }

  /** Removes a socket, releases its awareness client IDs and removes their states. */
  leave(conn: Connection): void {
    if (!this.conns.delete(conn)) return;
    this.ackDue.delete(conn);
    this.writers.release(conn);
    const ids = this.claims.release(conn).filter((id) => this.awareness.getStates().has(id));
    if (ids.length > 0) awarenessProtocol.removeAwarenessStates(this.awareness, ids, null);
  }

  /**
   * Applies the entries of an awareness update for client IDs that `conn` owns, or takes now: an
   * ID nobody owns is taken by news for it (a clock above the server's). Entries for IDs another
   * live socket owns, and for the server's own ID, are dropped. Stock clients echo every state
   * they receive, so an echo (a clock the server already has) must not take an ID whose owner
   * just left: its owner would find it taken on reconnecting.
   */
  private receiveAwareness(conn: Connection, update: Uint8Array): void {
    const bounded = readBoundedAwareness(update, this.deps.limits);
    if (!bounded.ok) return conn.close(bounded.close);
    const { entries } = bounded;
    let spoofed = 0;
    let overClaimed = false;
    const kept = entries.filter((e) => {
      if (e.clientID === this.awareness.clientID) return false;
      const owner = this.claims.ownerOf(e.clientID);
      const news = e.clock > (this.awareness.meta.get(e.clientID)?.clock ?? -1);
      if (owner === conn) return true;
      if (owner !== undefined) {
        if (news) spoofed += 1;
        return false;
      }
      if (news && !this.claims.take(conn, e.clientID)) overClaimed = true;
      return news && !overClaimed;
    });
    if (spoofed > 0) this.deps.metrics.presenceDropped.inc(spoofed);
    if (overClaimed) return conn.close(CloseCode.rateLimited);
    if (kept.length === 0) return;
    awarenessProtocol.applyAwarenessUpdate(this.awareness, kept.length === entries.length ? update : writeAwarenessEntries(kept), conn);
  }

  /**
   * Handles one frame from `conn`. Throws `MalformedMessage` (or a decoding error) for bytes that
   * are not a valid message; the caller closes that socket.
   */
  receive(conn: Connection, data: Uint8Array): void {
    if (this.held) {
      this.held.push({ conn, data });
      return;
    }
    const d = decoding.createDecoder(data);
    const type = decoding.readVarUint(d);
    if (type === MessageType.sync) return this.receiveSync(conn, d, data);
    if (type === MessageType.awareness) {
      const update = decoding.readVarUint8Array(d);
      expectEnd(d);
      if (!conn.awarenessBucket.take()) return conn.close(CloseCode.rateLimited);
      return this.receiveAwareness(conn, update);
    }
    if (type === MessageType.queryAwareness) {
      expectEnd(d);
      if (!conn.awarenessBucket.take()) return conn.close(CloseCode.rateLimited);
      const states = [...this.awareness.getStates().keys()];
      conn.send(encodeAwarenessMessage(awarenessProtocol.encodeAwarenessUpdate(this.awareness, states)));
      return;
    }
    throw new MalformedMessage(`unknown message type ${type}`);
  }

  private receiveSync(conn: Connection, d: decoding.Decoder, data: Uint8Array): void {
    const sub = decoding.readVarUint(d);
    if (sub !== SyncStep1 && sub !== SyncStep2 && sub !== SyncUpdate) throw new MalformedMessage(`unknown sync message ${sub}`);
    const payload = decoding.readVarUint8Array(d);
    expectEnd(d);
    if (!conn.syncBucket.take()) return conn.close(CloseCode.rateLimited);
    if (sub === SyncStep1 && this.deps.roomLog && !this.caughtUpFor.has(conn) && this.behind(payload)) {
      this.catchUp(this.deps.roomLog, conn);
      this.held?.push({ conn, data });
      return;
    }
    if (sub === SyncStep1) {
      this.flush();
      if (this.broken) return;
      // The shared store commits later: the answer goes with the next batch's commit.
      if (this.committing || this.committedSeq < this.queuedSeq) {
        this.step1Waiting.push({ conn, payload });
        return;
      }
      this.answerStep1(conn, payload);
      return;
    }
    const items = conn.items.read(payload);
    if (items.verdict !== ItemVerdict.ok) return conn.close(items.verdict === ItemVerdict.tooManyInUpdate ? CloseCode.messageTooBig : CloseCode.rateLimited);
    conn.received += 1;
    this.deps.metrics.updatesIn.inc();
    if (conn.wantsAck) {
      this.ackDue.add(conn);
      this.schedule();
    }
    const verdict = this.writers.admit(conn, checkUpdate(this.doc, payload, conn.role, items.headers));
    if (!verdict.ok) {
      this.deps.metrics.refused.inc({ reason: verdict.reason });
      // Its replica keeps the change, so every later update of that client ID would be a gap:
      // an opted-in client learns of it at once and can resync instead of wedging.
      if (conn.wantsAck) conn.send(encodeRefused({ reason: verdict.reason }));
      return;
    }
    if (verdict.noop) return;
    if (this.storedBytes + payload.length > this.deps.limits.roomBytes) return conn.close(CloseCode.roomTooLarge);
    for (const c of verdict.clients) conn.authored.add(c);
    this.applyChecked(conn, verdict.update, verdict.clients);
    this.deps.commits.commitIfOverdue();
  }

  /** Whether a client's state vector holds clocks past this document's (it has seen what this instance has not). */
  private behind(stateVector: Uint8Array): boolean {
    for (const [client, clock] of Y.decodeStateVector(stateVector)) if (clock > Y.getState(this.doc.store, client)) return true;
    return false;
  }

  /**
   * Scaled mode: a client knows more of the room than this instance. It may only be its own edits
   * not yet sent, but it may also hold what another instance committed and then died before
   * publishing on the bus (its clients come here after failover). Those changes are in the log, so
   * the room reads the log again before it handles anything more: the messages of every socket
   * wait, in order, meanwhile. Without that, a client relaying such changes (a dead instance's
   * server writes, an owner's settings) would be refused as writing with a stronger writer's ID.
   * Once per socket.
   */
  private catchUp(roomLog: RoomLog, conn: Connection): void {
    this.caughtUpFor.add(conn);
    if (this.held) return;
    this.held = [];
    roomLog.load(this.id).then((state) => this.applyStored(state), (err: unknown) => this.deps.log.warn({ err, room: this.id }, 'catching up from the log failed'))
      .finally(() => {
        const held = this.held ?? [];
        this.held = undefined;
        for (const { conn: c, data } of held) {
          if (c.closed || !this.conns.has(c)) continue;
          try {
            this.receive(c, data);
          } catch (err) {
            this.deps.log.debug({ err: (err as Error).message, room: this.id }, 'malformed message');
            c.close(CloseCode.malformedMessage);
          }
        }
      });
  }

  private answerStep1(conn: Connection, payload: Uint8Array): void {
    conn.send(this.step2For(payload));
  }

  /** The sync step 2 answering a state vector. */
  private step2For(payload: Uint8Array): Uint8Array {
    // An empty state vector (a fresh client) is one zero byte; its answer is the whole state.
    const fresh = payload.length === 1 && payload[0] === 0;
    return encodeSyncMessage(SyncStep2, fresh ? this.encodeFullState() : Y.encodeStateAsUpdate(this.doc, payload));
  }

  /**
   * Runs `fn` as one server transaction and commits it. Resolves once it is committed, rejects
   * with `RoomCommitError` if the commit failed. The embedded store has committed it before this
   * returns (the promise is already settled); the shared store answers later.
   */
  transact(fn: (doc: Y.Doc) => void): Promise<void> {
    this.doc.transact(() => fn(this.doc), SERVER_ORIGIN);
    const seq = this.queuedSeq;
    this.flush();
    return this.settled(seq);
  }

  /** Resolves once everything queued up to `seq` (default: now) is committed; rejects with `RoomCommitError` if the room broke. */
  settled(seq = this.queuedSeq): Promise<void> {
    if (this.broken) return Promise.reject(new RoomCommitError(this.id, this.failure));
    if (this.committedSeq >= seq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Whether something is queued or in a commit. */
  get busy(): boolean {
    return this.committing || this.pending.length > 0;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.deps.commits.schedule(this);
  }

  /** Commits this room's queue now, alone, then broadcasts it and sends due acks. */
  flush(): void {
    this.deps.commits.commit([this]);
  }

  /**
   * For `GroupCommit`: takes the queued updates (none once the room is broken) and the acks due,
   * encoded now: they acknowledge what was queued when the batch was taken, not what comes while
   * it commits.
   */
  takeBatch(): PendingUpdate[] {
    this.scheduled = false;
    if (this.broken) return [];
    const batch = this.pending;
    this.pending = [];
    const acks: DueAck[] = [];
    for (const c of this.ackDue) {
      const entries = [...c.authored].map((clientID) => ({ clientID, clock: Y.getState(this.doc.store, clientID) }));
      acks.push({ conn: c, msg: encodeAck({ seq: c.received, entries }) });
    }
    this.ackDue.clear();
    const step2s: DueAck[] = [];
    if (this.step1Waiting.length > 0) {
      // Nothing is queued after this batch: the document now is what its commit makes durable.
      for (const w of this.step1Waiting) step2s.push({ conn: w.conn, msg: this.step2For(w.payload) });
      this.step1Waiting = [];
    }
    this.taken = { seq: this.queuedSeq, acks, step2s };
    return batch;
  }

  /** For `GroupCommit`: the commit of this room's batch failed (`err`), so the room closes. */
  commitFailed(err?: unknown): void {
    this.failure = err;
    this.breakRoom();
  }

  /**
   * For `GroupCommit`: `batch` is on disk, its last log row `lastId` (undefined for an empty
   * batch). Sends due acks, broadcasts it, and schedules a compaction when the log has grown past
   * a threshold.
   */
  publish(batch: readonly PendingUpdate[], lastId: number | undefined): void {
    if (this.broken) return;
    if (lastId !== undefined) this.lastId = lastId;
    const taken = this.taken;
    this.taken = undefined;
    // Acks first: the authors learn their writes are durable before the broadcast's many sends.
    for (const a of taken?.acks ?? []) a.conn.send(a.msg);
    for (const { update, origin } of batch) {
      this.logCount += 1;
      this.logBytes += update.length;
      this.storedBytes += update.length;
      const msg = encodeSyncMessage(SyncUpdate, update);
      let n = 0;
      for (const c of this.conns) {
        if (c === origin) continue;
        c.send(msg);
        n += 1;
      }
      this.deps.metrics.updatesOut.inc(n);
      this.deps.metrics.fanout.observe(n);
      // Committed, so the other instances holding the room may have it (best effort: they resync from the log otherwise).
      if (this.deps.bus) void this.deps.bus.publish(this.id, BusKind.update, update);
    }
    if (taken) this.committedSeq = taken.seq;
    if (this.waiters.length > 0) this.wake();
    for (const a of taken?.step2s ?? []) a.conn.send(a.msg);
    if (batch.length > 0) {
      this.history.committed();
      this.scheduleCompaction();
    }
  }

  /** Whether the log has passed `factor` times a compaction threshold. */
  private logPast(factor: number): boolean {
    return this.logCount >= this.deps.compactCount * factor || this.logBytes >= this.deps.compactBytes * factor;
  }

  /** After a commit: compacts at once past the forced limit, else (past a threshold) once the room is idle. */
  private scheduleCompaction(): void {
    if (this.logPast(COMPACT_FORCE_FACTOR)) return this.compact();
    if (!this.logPast(1)) return;
    if (this.compactTimer) {
      this.compactTimer.refresh();
      return;
    }
    this.compactTimer = setTimeout(() => {
      this.compactTimer = undefined;
      this.flush();
      if (!this.broken && this.logPast(1)) this.compact();
    }, COMPACT_IDLE_MS);
    this.compactTimer.unref();
  }

  private encodeFullState(): Uint8Array {
    this.fullState ??= Y.encodeStateAsUpdate(this.doc);
    return this.fullState;
  }

  private compact(): void {
    clearTimeout(this.compactTimer);
    this.compactTimer = undefined;
    if (this.deps.roomLog) return this.compactShared(this.deps.roomLog);
    const snapshot = this.encodeFullState();
    try {
      this.deps.updates.compact(this.id, snapshot, this.lastId);
    } catch (err) {
      this.deps.log.warn({ err, room: this.id }, 'compaction failed; the log stays as it is');
      return;
    }
    this.storedBytes = snapshot.length;
    this.logCount = 0;
    this.logBytes = 0;
  }

  /** Resolves the waiters whose updates are committed now. */
  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.seq > this.committedSeq) continue;
      this.waiters.splice(i, 1);
      w.resolve();
    }
  }

  /** The shared compaction under way, if any (a shutdown waits for it). */
  compacting: Promise<void> | undefined;

  /**
   * Compaction in scaled mode: the snapshot is built from the log as stored (one consistent read:
   * the snapshot and every row after it, through the last id), never from memory, so it holds
   * every row up to that id whoever committed it. Per-room ids are taken under the room's head
   * row lock, so a row with a lower id than one that is visible has committed too.
   */
  private compactShared(roomLog: RoomLog): void {
    if (this.compacting) return;
    const run = async () => {
      const state = await roomLog.load(this.id);
      if (state.updates.length === 0) return;
      const doc = new Y.Doc();
      try {
        Y.transact(doc, () => {
          if (state.snapshot) Y.applyUpdate(doc, state.snapshot);
          for (const u of state.updates) Y.applyUpdate(doc, u);
        });
        const snapshot = Y.encodeStateAsUpdate(doc);
        await roomLog.compact(this.id, snapshot, state.lastId);
        this.storedBytes = snapshot.length;
      } finally {
        doc.destroy();
      }
      this.logCount = 0;
      this.logBytes = 0;
    };
    this.compacting = run()
      .catch((err: unknown) => this.deps.log.warn({ err, room: this.id }, 'compaction failed; the log stays as it is'))
      .finally(() => (this.compacting = undefined));
  }

  private breakRoom(): void {
    this.broken = true;
    this.pending = [];
    this.taken = undefined;
    this.step1Waiting = [];
    for (const w of this.waiters.splice(0)) w.reject(new RoomCommitError(this.id, this.failure));
    for (const c of [...this.conns]) c.close(CloseCode.serverError);
  }

  /** Commits what is queued, compacts if the log is past a threshold, and releases memory; the room must have no sockets. */
  destroy(): void {
    this.destroyed = true;
    this.flush();
    if (!this.broken && this.logPast(1)) this.compact();
    clearTimeout(this.compactTimer);
    clearTimeout(this.fillTimer);
    this.history.destroy();
    this.awareness.off('update', this.onAwareness);
    this.doc.off('update', this.onUpdate);
    this.awareness.destroy();
    this.doc.destroy();
  }
}
