import type { Logger } from 'pino';
import type { Store } from '../store';
import type { ReplayHistory, RoomLog } from '../store/shared-store';
import { BusKind, type BusFrame } from './bus/frame';
import type { RoomBus } from './bus/room-bus';
import type { Metrics } from '../metrics';
import type { Limits } from '../config';
import { CloseCode } from '@seam/shared/protocol';
import type { Connection } from './connection';
import { GroupCommit } from './group-commit';
import { Room, type LoadedRoomState } from './room';

export interface RoomsOptions {
  readonly store: Store;
  readonly metrics: Metrics;
  readonly limits: Limits;
  readonly log: Logger;
  readonly idleUnloadSeconds: number;
  readonly compactCount: number;
  readonly compactBytes: number;
  /**
   * Scaled mode: the shared room log (PostgreSQL). Rooms load from it and commit to it, and any
   * instance may hold any room. Absent: the embedded store's log, as always.
   */
  readonly roomLog?: RoomLog;
  /** Where rooms' committed updates and awareness travel between instances (`LocalRoomBus` in embedded mode). */
  readonly bus?: RoomBus;
  /** Scaled mode: the shared replay history presenter samples go to. Absent: the embedded store's. */
  readonly history?: ReplayHistory;
}

/** A token hash (SHA-256) is this long. */
const TOKEN_HASH_BYTES = 32;

/** `Rooms.get` of a room that is not loaded, in scaled mode (where loading cannot be done without waiting). */
export class RoomNotLoadedError extends Error {
  override readonly name = 'RoomNotLoadedError';
  constructor(roomId: string) {
    super(`room ${roomId} is not loaded on this instance`);
  }
}

/**
 * The loaded rooms. A room loads on first use (snapshot + log replayed) and unloads after
 * `idleUnloadSeconds` without sockets, its queue committed first.
 */
export class Rooms {
  private readonly loaded = new Map<string, Room>();
  /** Loads under way: concurrent loads of one room share one. */
  private readonly loading = new Map<string, Promise<Room>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly commits: GroupCommit;
  /** Shared compactions of unloaded rooms still under way. */
  private readonly background = new Set<Promise<void>>();

  constructor(private readonly o: RoomsOptions) {
    this.commits = new GroupCommit({ updates: o.roomLog ?? o.store.updates, metrics: o.metrics, log: o.log });
  }

  /**
   * The room, loading it if needed (a broken one is loaded again). The caller has checked that the
   * room exists. Concurrent loads of one room share one promise. The embedded store loads on this
   * turn: the promise is settled before it is returned.
   */
  load(id: string): Promise<Room> {
    const room = this.loaded.get(id);
    if (room && !room.broken) return Promise.resolve(room);
    if (room) this.unload(id);
    const loading = this.loading.get(id);
    if (loading) return loading;
    if (this.o.roomLog) {
      const shared = this.loadShared(id, this.o.roomLog).finally(() => this.loading.delete(id));
      this.loading.set(id, shared);
      return shared;
    }
    try {
      return Promise.resolve(this.install(id, this.o.store.updates.load(id)));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * Scaled mode: joins the room's bus channel, then reads the room from the shared log. In that
   * order, what another instance commits between the two arrives on the bus, is held until the
   * room is built and then applied (Yjs ignores what the read already had): nothing falls between.
   */
  private async loadShared(id: string, roomLog: RoomLog): Promise<Room> {
    const { bus } = this.o;
    const early: BusFrame[] = [];
    let held: Room | undefined;
    let resync = false;
    const holders = await bus?.join(id, {
      message: (frame) => {
        if (frame.kind === BusKind.closeToken) return this.closeTokenHere(id, frame.data);
        if (held) held.fromBus(frame);
        else early.push(frame);
      },
      resync: () => (held ? this.resync(held) : (resync = true)),
    });
    let room: Room;
    try {
      room = this.install(id, await roomLog.load(id));
      held = room;
      for (const instance of holders ?? []) room.knowInstance(instance);
      if (room.ready) await room.ready;
    } catch (err) {
      if (held && this.loaded.get(id) === held) this.unload(id);
      void bus?.leave(id);
      throw err;
    }
    for (const frame of early) room.fromBus(frame);
    if (resync) this.resync(room);
    // The other holders answer with their sockets' presence: a joiner here sees everyone at once.
    void bus?.publish(id, BusKind.query, new Uint8Array(0));
    return room;
  }

  /** Reads the room again from the shared log and applies it: the bus may have lost messages. */
  private resync(room: Room): void {
    this.o.roomLog?.load(room.id).then(
      (state) => room.applyStored(state),
      (err: unknown) => this.o.log.warn({ err, room: room.id }, 'resync failed; the room catches up at its next load'),
    );
  }

  /**
   * The room now, for callers that cannot wait (the capture queue's status, the lab evaluator,
   * tests): the embedded store loads it on the spot. With the shared store a room that is not
   * loaded cannot be had without waiting, and this throws `RoomNotLoadedError`; such callers are
   * instance-local features that scaled mode refuses (docs/storage.md).
   */
  get(id: string): Room {
    const room = this.loadedRoom(id);
    if (room) return room;
    if (this.o.roomLog) throw new RoomNotLoadedError(id);
    if (this.loaded.has(id)) this.unload(id);
    return this.install(id, this.o.store.updates.load(id));
  }

  /** Builds the room from its loaded state and holds it. */
  private install(id: string, state: LoadedRoomState): Room {
    const { store, metrics, limits, log, compactCount, compactBytes, roomLog, bus, history } = this.o;
    const room = new Room(id, {
      updates: store.updates, commits: this.commits, metrics, limits, log, compactCount, compactBytes,
      ...(roomLog ? { roomLog } : {}), ...(bus ? { bus } : {}), ...(history ? { history } : {}),
    }, state);
    this.loaded.set(id, room);
    this.o.metrics.loadedRooms.set(this.loaded.size);
    this.idle(room);
    return room;
  }

  /** The room if it is in memory now (and not broken). */
  loadedRoom(id: string): Room | undefined {
    const room = this.loaded.get(id);
    return room?.broken ? undefined : room;
  }

  /** Whether room `id` is in memory now. */
  isLoaded(id: string): boolean {
    return this.loaded.has(id);
  }

  /** Adds a socket to a loaded room (`load` first). */
  join(room: Room, conn: Connection): void {
    const id = room.id;
    const timer = this.timers.get(id);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(id);
    }
    room.join(conn);
    this.o.metrics.connections.inc();
  }

  /** Removes a socket; the room unloads later if it was the last one. */
  leave(room: Room, conn: Connection): void {
    if (!room.conns.has(conn)) return;
    room.leave(conn);
    this.o.metrics.connections.dec();
    this.idle(room);
  }

  /** Starts the unload timer of a room that has no sockets. */
  idle(room: Room): void {
    if (room.conns.size > 0 || this.timers.has(room.id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(room.id);
      if (room.conns.size > 0 || this.loaded.get(room.id) !== room) return;
      // A commit in flight (scaled mode) is waited out: a room loaded again meanwhile must find it in the log.
      if (room.busy) return this.idle(room);
      this.unload(room.id);
    }, this.o.idleUnloadSeconds * 1000);
    timer.unref();
    this.timers.set(room.id, timer);
  }

  private unload(id: string): void {
    const room = this.loaded.get(id);
    if (!room) return;
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.loaded.delete(id);
    room.destroy();
    if (this.o.roomLog && this.o.bus && !this.loading.has(id)) void this.o.bus.leave(id);
    const compacting = room.compacting;
    if (compacting) {
      this.background.add(compacting);
      void compacting.finally(() => this.background.delete(compacting));
    }
    this.o.metrics.loadedRooms.set(this.loaded.size);
  }

  /** Resolves once every commit in flight and every compaction under way has answered (scaled mode; a shutdown waits for it). */
  async settled(): Promise<void> {
    await this.commits.idle();
    await Promise.allSettled([...this.background]);
  }

  /**
   * Closes every socket of `roomId` that authenticated with the token hashed as `tokenHash` (hex),
   * here and, in scaled mode, on every other instance holding the room (a `closeToken` bus frame;
   * the caller has replaced the token in the directory first). Returns how many closed here.
   */
  closeToken(roomId: string, tokenHash: string, code: CloseCode): number {
    if (this.o.roomLog && this.o.bus) void this.o.bus.publish(roomId, BusKind.closeToken, Buffer.from(tokenHash, 'hex'));
    return this.closeLocal(roomId, tokenHash, code);
  }

  /** A `closeToken` frame from another instance: its 32 bytes are the revoked token's hash. */
  private closeTokenHere(roomId: string, hash: Uint8Array): void {
    if (hash.length !== TOKEN_HASH_BYTES) {
      this.o.log.warn({ room: roomId, bytes: hash.length }, 'closeToken bus frame ignored: not a token hash');
      return;
    }
    this.closeLocal(roomId, Buffer.from(hash).toString('hex'), CloseCode.tokenRevoked);
  }

  private closeLocal(roomId: string, tokenHash: string, code: CloseCode): number {
    const room = this.loaded.get(roomId);
    if (!room) return 0;
    let n = 0;
    for (const c of [...room.conns]) {
      if (c.tokenHash !== tokenHash) continue;
      c.close(code);
      this.leave(room, c);
      n += 1;
    }
    return n;
  }

  /** Closes every socket with `code`, commits every queue and unloads everything. */
  closeAll(code: CloseCode): void {
    for (const [id, room] of [...this.loaded]) {
      for (const c of [...room.conns]) {
        c.close(code);
        this.leave(room, c);
      }
      this.unload(id);
    }
  }
}
