import type Database from 'better-sqlite3';
import { HistoryStore } from '../teaching/replay/history-store';

/** What a room's stored state is: one snapshot (maybe none) and the log after it. */
export interface StoredRoomState {
  readonly snapshot: Uint8Array | undefined;
  readonly updates: readonly Uint8Array[];
  /** Bytes of the log after the snapshot. */
  readonly logBytes: number;
}

/** One room's share of a cross-room group commit. */
export interface RoomBatch {
  readonly roomId: string;
  readonly updates: readonly Uint8Array[];
}

/**
 * The room documents' update log and snapshots. `append` commits a whole batch of one room in one
 * transaction, `appendRooms` the batches of many rooms in one (the group commit); `compact`
 * replaces the log with a snapshot atomically.
 */
export class UpdatesStore {
  /** The rooms' timed history for replay, written in the same transactions as the log. */
  readonly history: HistoryStore;
  private readonly insert;
  private readonly selectSnapshot;
  private readonly selectLog;
  private readonly upsertSnapshot;
  private readonly deleteLog;
  private readonly appendTx;
  private readonly appendRoomsTx;
  private readonly compactTx;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO room_updates (room_id, data) VALUES (?, ?)');
    this.selectSnapshot = db.prepare<[string], { data: Buffer; through_id: number }>('SELECT data, through_id FROM room_snapshots WHERE room_id = ?');
    this.selectLog = db.prepare<[string, number], { id: number; data: Buffer }>('SELECT id, data FROM room_updates WHERE room_id = ? AND id > ? ORDER BY id');
    this.upsertSnapshot = db.prepare(
      'INSERT INTO room_snapshots (room_id, data, through_id) VALUES (?, ?, ?) ON CONFLICT(room_id) DO UPDATE SET data = excluded.data, through_id = excluded.through_id',
    );
    this.deleteLog = db.prepare('DELETE FROM room_updates WHERE room_id = ? AND id <= ?');
    this.history = new HistoryStore(db);
    const insertAll = (roomId: string, updates: readonly Uint8Array[]): number => {
      this.history.recordUpdates(roomId, updates, Date.now());
      let last = 0;
      for (const u of updates) last = Number(this.insert.run(roomId, u).lastInsertRowid);
      return last;
    };
    this.appendTx = db.transaction(insertAll);
    this.appendRoomsTx = db.transaction((batches: readonly RoomBatch[]) => batches.map((b) => insertAll(b.roomId, b.updates)));
    this.compactTx = db.transaction((roomId: string, snapshot: Uint8Array, throughId: number) => {
      this.upsertSnapshot.run(roomId, snapshot, throughId);
      this.deleteLog.run(roomId, throughId);
    });
  }

  /** Reads everything needed to rebuild a room document. */
  load(roomId: string): StoredRoomState & { lastId: number } {
    const snap = this.selectSnapshot.get(roomId);
    const rows = this.selectLog.all(roomId, snap?.through_id ?? 0);
    let logBytes = 0;
    for (const r of rows) logBytes += r.data.length;
    return {
      snapshot: snap?.data,
      updates: rows.map((r) => r.data),
      logBytes,
      lastId: rows.at(-1)?.id ?? snap?.through_id ?? 0,
    };
  }

  /** Appends updates in one transaction and returns the id of the last one. Throws if the disk refuses. */
  append(roomId: string, updates: readonly Uint8Array[]): number {
    return this.appendTx.immediate(roomId, updates);
  }

  /**
   * Every write transaction here begins IMMEDIATE: the history's bookkeeping reads before it writes,
   * and a deferred transaction that has read cannot take the write lock once the checkpointer's
   * connection has restarted the WAL since (`SQLITE_BUSY` at once, no busy wait); BEGIN IMMEDIATE
   * takes the lock first, waiting out the checkpoint under `busy_timeout`.
   *
   * Appends the batches of several rooms in one transaction and returns, per batch, the id of its
   * last update. All or nothing: throws, and stores none of them, if any insert fails.
   */
  appendRooms(batches: readonly RoomBatch[]): number[] {
    return this.appendRoomsTx.immediate(batches);
  }

  /** Replaces the log up to `throughId` with `snapshot`, atomically. */
  compact(roomId: string, snapshot: Uint8Array, throughId: number): void {
    this.compactTx.immediate(roomId, snapshot, throughId);
  }
}
