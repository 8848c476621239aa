import type { Logger } from 'pino';
import type { Store } from '../store';
import type { Metrics } from '../metrics';
import type { Limits } from '../config';
import type { CloseCode } from '@seam/shared/protocol';
import type { Connection } from './connection';
import { GroupCommit } from './group-commit';
import { Room } from './room';

export interface RoomsOptions {
  readonly store: Store;
  readonly metrics: Metrics;
  readonly limits: Limits;
  readonly log: Logger;
  readonly idleUnloadSeconds: number;
  readonly compactCount: number;
  readonly compactBytes: number;
}

/**
 * The loaded rooms. A room loads on first use (snapshot + log replayed) and unloads after
 * `idleUnloadSeconds` without sockets, its queue committed first.
 */
export class Rooms {
  private readonly loaded = new Map<string, Room>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly commits: GroupCommit;

  constructor(private readonly o: RoomsOptions) {
    this.commits = new GroupCommit({ updates: o.store.updates, metrics: o.metrics, log: o.log });
  }

  /** The room, loading it if needed. The caller has checked that the room exists. */
  get(id: string): Room {
    let room = this.loaded.get(id);
    if (room?.broken) {
      this.unload(id);
      room = undefined;
    }
    if (!room) {
      const { store, metrics, limits, log, compactCount, compactBytes } = this.o;
      room = new Room(id, { updates: store.updates, commits: this.commits, metrics, limits, log, compactCount, compactBytes });
      this.loaded.set(id, room);
      this.o.metrics.loadedRooms.set(this.loaded.size);
      this.idle(room);
    }
    return room;
  }

  /** Whether room `id` is in memory now. */
  isLoaded(id: string): boolean {
    return this.loaded.has(id);
  }

  /** Adds a socket to a room. */
  join(id: string, conn: Connection): Room {
    const room = this.get(id);
    const timer = this.timers.get(id);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(id);
    }
    room.join(conn);
    this.o.metrics.connections.inc();
    return room;
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
      if (room.conns.size === 0 && this.loaded.get(room.id) === room) this.unload(room.id);
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
    this.o.metrics.loadedRooms.set(this.loaded.size);
  }

  /** Closes every socket of `roomId` that authenticated with the token hashed as `tokenHash`. */
  closeToken(roomId: string, tokenHash: string, code: CloseCode): number {
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
