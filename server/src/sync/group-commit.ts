import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import type { RoomBatch } from '../store';
import type { Room } from './room';

/**
 * What appends a group: the embedded store answers at once with the ids (and the group is handled
 * on the same turn, as it always was), the shared store with a promise of them.
 */
export interface RoomAppender {
  appendRooms(batches: readonly RoomBatch[]): number[] | Promise<number[]>;
}

/** What the group commit needs besides the rooms. */
export interface GroupCommitDeps {
  readonly updates: RoomAppender;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** The clock, ms (default `performance.now`): tests drive it. */
  readonly now?: () => number;
}

/**
 * A group that has been open this long (ms) within one event-loop turn commits at once, before the
 * turn has read every socket: after a pause (a GC, a busy machine) a turn reads a backlog of
 * messages, and without this bound every update of it would wait for the last one to be read
 * before anything is broadcast; the reference server relays each as it reads it.
 */
export const GROUP_OPEN_MS = 2;

/**
 * The group commit across rooms: every room with queued updates or due acks asks for a commit,
 * and at the end of the event-loop turn (or once the group has been open `GROUP_OPEN_MS`) the
 * queues of all of them are appended in one SQLite transaction. Only once it has committed does each room broadcast its updates and send its acks.
 * If the transaction fails, no room of the group broadcasts anything: each closes its sockets and
 * reloads from disk on next use (docs/storage.md). At 400 updates/s over 500 rooms this is one
 * transaction per turn instead of one per room.
 *
 * With an appender that answers with a promise (PostgreSQL), the event loop goes on while the group
 * commits: a room whose batch is in flight stays due and queues into a later group, taken once
 * its commit has answered, so one room's commits never overlap and keep their order.
 */
export class GroupCommit {
  private readonly due = new Set<Room>();
  private scheduled = false;
  /** When the first room of the open group asked for its commit. */
  private openedAt = 0;
  private readonly now: () => number;
  /** Groups whose commit has not answered yet. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: GroupCommitDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  /** Commits `room` with the others at the end of this event-loop turn. */
  schedule(room: Room): void {
    if (this.due.size === 0) this.openedAt = this.now();
    this.due.add(room);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  /**
   * Commits the open group now if it has been open `GROUP_OPEN_MS` or longer; the room calls it
   * after each update it queues. The end-of-turn commit then takes whatever comes after.
   */
  commitIfOverdue(): void {
    if (this.due.size > 0 && this.now() - this.openedAt >= GROUP_OPEN_MS) this.commit([...this.due]);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const rooms = [...this.due];
    this.commit(rooms);
  };

  /**
   * Commits the queues of `rooms` now, in one transaction, then lets each publish. A room whose
   * batch is still in flight stays due for the group after its commit answers.
   */
  commit(rooms: readonly Room[]): void {
    const work: { room: Room; batch: ReturnType<Room['takeBatch']> }[] = [];
    for (const room of rooms) {
      if (room.committing) {
        this.due.add(room);
        continue;
      }
      this.due.delete(room);
      work.push({ room, batch: room.takeBatch() });
    }
    const writes = work.filter((w) => w.batch.length > 0);
    const lastIds = new Map<Room, number>();
    if (writes.length > 0) {
      const end = this.deps.metrics.persistSeconds.startTimer();
      const failed = (err: unknown) => {
        this.deps.log.error({ err, rooms: writes.map((w) => w.room.id) }, 'commit failed; closing the rooms');
        for (const w of writes) w.room.commitFailed(err);
      };
      let ids: number[] | Promise<number[]>;
      try {
        ids = this.deps.updates.appendRooms(writes.map((w) => ({ roomId: w.room.id, updates: w.batch.map((b) => b.update) })));
      } catch (err) {
        ids = [];
        failed(err);
      }
      if (ids instanceof Promise) return this.await(ids, work, writes, end, failed);
      if (ids.length > 0) writes.forEach((w, i) => lastIds.set(w.room, ids[i] ?? 0));
      end();
      if (lastIds.size > 0) this.deps.metrics.batchSize.observe(writes.reduce((n, w) => n + w.batch.length, 0));
    }
    for (const w of work) {
      if (w.batch.length === 0) w.room.publish([], undefined);
      else if (lastIds.has(w.room)) w.room.publish(w.batch, lastIds.get(w.room));
    }
  }

  /** The asynchronous half of `commit`: the writing rooms publish (or fail) when the appender answers. */
  private await(ids: Promise<number[]>, work: { room: Room; batch: ReturnType<Room['takeBatch']> }[], writes: typeof work, end: () => void, failed: (err: unknown) => void): void {
    // Rooms with only acks due have nothing queued or in flight: their acks hold.
    for (const w of work) if (w.batch.length === 0) w.room.publish([], undefined);
    for (const w of writes) w.room.committing = true;
    const settled = ids.then(
      (got) => {
        end();
        this.deps.metrics.batchSize.observe(writes.reduce((n, w) => n + w.batch.length, 0));
        for (const w of writes) w.room.committing = false;
        writes.forEach((w, i) => {
          try {
            w.room.publish(w.batch, got[i] ?? 0);
          } catch (err) {
            this.deps.log.error({ err, room: w.room.id }, 'publishing a committed batch failed');
          }
        });
      },
      (err: unknown) => {
        end();
        for (const w of writes) w.room.committing = false;
        failed(err);
      },
    ).finally(() => {
      this.inFlight.delete(settled);
      // Rooms that queued while their batch was in flight commit now.
      if (this.due.size > 0 && !this.scheduled) {
        this.scheduled = true;
        setImmediate(this.run);
      }
    });
    this.inFlight.add(settled);
  }

  /** Resolves once every group in flight has answered (a shutdown waits for it before closing the store). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
