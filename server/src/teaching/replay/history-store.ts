import type Database from 'better-sqlite3';
import * as Y from 'yjs';
import type { PresenterSample } from '@seam/shared/teaching';

/** What a history row holds. */
export const HistoryRowKind = { update: 0, presenter: 1 } as const;
export type HistoryRowKind = (typeof HistoryRowKind)[keyof typeof HistoryRowKind];

/** One stored entry of a room's history. */
export interface HistoryRow {
  readonly id: number;
  readonly at: number;
  readonly kind: HistoryRowKind;
  readonly data: Uint8Array;
}

/** Where a room's history starts: the document as it was then, when that was, and the last entry's time. */
export interface HistoryStart {
  readonly base: Uint8Array;
  readonly startsAt: number;
  readonly endsAt: number;
  /** Whether older history was dropped (past `historyBytes` or `historySeconds`). */
  readonly dropped: boolean;
}

/** The bounds of one room's history. */
export interface HistoryLimits {
  readonly historyBytes: number;
  readonly historySeconds: number;
}

/** Where a page of history resumes: after the entry at (`at`, `id`). */
export interface HistoryCursor {
  readonly at: number;
  readonly id: number;
}

/** Over its byte bound, a room's history is cut to this share of it, so that it is not cut at every commit. */
export const HISTORY_TRIM_TO = 0.9;

/** An empty document as an update: what a room with nothing stored starts from. */
export const EMPTY_STATE = Y.encodeStateAsUpdate(new Y.Doc());

interface BaseRow {
  data: Buffer;
  starts_at: number;
  last_at: number;
  bytes: number;
  dropped: number;
}

/**
 * Each room's timed history for replay (docs/storage.md): every committed update and presenter
 * sample with its time (ms since 1970), in `room_history`, which compaction never touches; and in
 * `room_history_base` the document as it was where the history starts. The first entry of a room
 * stores the room's state before it (empty for a new room, everything so far for a room older than
 * the history); dropping old entries merges the dropped updates into that base, so any suffix of
 * the history still rebuilds the document. Times never go back within a room: an entry is stamped
 * no earlier than the one before it.
 */
export class HistoryStore {
  private readonly selectBase;
  private readonly insertBase;
  private readonly bumpBase;
  private readonly insertRow;
  private readonly selectSnapshot;
  private readonly selectLog;
  private readonly selectOldest;
  private readonly selectFrom;
  private readonly selectPage;
  private readonly selectKind;
  private readonly deleteThrough;
  private readonly updateBase;
  private readonly trimTx;
  private readonly presenterTx;

  constructor(db: Database.Database) {
    this.selectBase = db.prepare<[string], BaseRow>('SELECT data, starts_at, last_at, bytes, dropped FROM room_history_base WHERE room_id = ?');
    this.insertBase = db.prepare('INSERT INTO room_history_base (room_id, data, starts_at, last_at, bytes, dropped) VALUES (?, ?, ?, ?, 0, 0)');
    this.bumpBase = db.prepare('UPDATE room_history_base SET last_at = ?, bytes = bytes + ? WHERE room_id = ?');
    this.insertRow = db.prepare('INSERT INTO room_history (room_id, at, kind, data) VALUES (?, ?, ?, ?)');
    this.selectSnapshot = db.prepare<[string], { data: Buffer; through_id: number }>('SELECT data, through_id FROM room_snapshots WHERE room_id = ?');
    this.selectLog = db.prepare<[string, number], { data: Buffer }>('SELECT data FROM room_updates WHERE room_id = ? AND id > ? ORDER BY id');
    this.selectOldest = db.prepare<[string], { at: number }>('SELECT at FROM room_history WHERE room_id = ? ORDER BY at, id LIMIT 1');
    this.selectFrom = db.prepare<[string], { id: number; at: number; kind: number; data: Buffer }>(
      'SELECT id, at, kind, data FROM room_history WHERE room_id = ? ORDER BY at, id',
    );
    this.selectPage = db.prepare<[string, number, number, number, number], { id: number; at: number; kind: number; data: Buffer }>(
      'SELECT id, at, kind, data FROM room_history WHERE room_id = ? AND at <= ? AND (at > ? OR (at = ? AND id > ?)) ORDER BY at, id',
    );
    this.selectKind = db.prepare<[string, number, number], { at: number; data: Buffer }>(
      'SELECT at, data FROM room_history WHERE room_id = ? AND kind = ? ORDER BY at, id LIMIT ?',
    );
    this.deleteThrough = db.prepare('DELETE FROM room_history WHERE room_id = ? AND id <= ?');
    this.updateBase = db.prepare('UPDATE room_history_base SET data = ?, starts_at = ?, bytes = ?, dropped = 1 WHERE room_id = ?');
    this.trimTx = db.transaction((roomId: string, cutoff: number, targetBytes: number) => this.trimNow(roomId, cutoff, targetBytes));
    this.presenterTx = db.transaction((roomId: string, at: number, data: Uint8Array) => this.insert(roomId, at, HistoryRowKind.presenter, [data]));
  }

  /** The room's stored document (snapshot and log) as one update. */
  private storedState(roomId: string): Uint8Array {
    const snap = this.selectSnapshot.get(roomId);
    const parts: Uint8Array[] = snap ? [snap.data] : [];
    for (const r of this.selectLog.all(roomId, snap?.through_id ?? 0)) parts.push(r.data);
    return parts.length === 0 ? EMPTY_STATE : parts.length === 1 ? (parts[0] as Uint8Array) : Y.mergeUpdates(parts);
  }

  /** Inserts entries of one kind; the caller holds a transaction. Starts the room's history first if it has none. */
  private insert(roomId: string, at: number, kind: HistoryRowKind, entries: readonly Uint8Array[]): void {
    let base = this.selectBase.get(roomId);
    if (!base) {
      this.insertBase.run(roomId, this.storedState(roomId), at, at);
      base = { data: Buffer.alloc(0), starts_at: at, last_at: at, bytes: 0, dropped: 0 };
    }
    const t = Math.max(at, base.last_at);
    let bytes = 0;
    for (const e of entries) {
      this.insertRow.run(roomId, t, kind, e);
      bytes += e.length;
    }
    this.bumpBase.run(t, bytes, roomId);
  }

  /**
   * Records updates committed at `at`. Call it inside the transaction that appends them to the log
   * (the group commit), before they are appended, so that the history holds exactly what was committed.
   */
  recordUpdates(roomId: string, updates: readonly Uint8Array[], at: number): void {
    if (updates.length > 0) this.insert(roomId, at, HistoryRowKind.update, updates);
  }

  /** Records where the presenter is at `at` (`null`: nobody presents), in its own transaction. */
  recordPresenter(roomId: string, at: number, view: PresenterSample | null): void {
    this.presenterTx.immediate(roomId, at, new TextEncoder().encode(JSON.stringify(view)));
  }

  /**
   * Drops the room's oldest entries while its history is over `historyBytes` (down to
   * `HISTORY_TRIM_TO` of it) or older than `historySeconds` at `now`, merging the dropped updates
   * into the base. Returns how many entries it dropped (0, cheaply, when within bounds).
   */
  trim(roomId: string, limits: HistoryLimits, now: number): number {
    const base = this.selectBase.get(roomId);
    if (!base) return 0;
    const cutoff = now - limits.historySeconds * 1000;
    const oldest = this.selectOldest.get(roomId);
    if (base.bytes <= limits.historyBytes && (!oldest || oldest.at >= cutoff)) return 0;
    const target = base.bytes > limits.historyBytes ? Math.floor(limits.historyBytes * HISTORY_TRIM_TO) : base.bytes;
    return this.trimTx.immediate(roomId, cutoff, target);
  }

  private trimNow(roomId: string, cutoff: number, targetBytes: number): number {
    const base = this.selectBase.get(roomId);
    if (!base) return 0;
    let bytes = base.bytes;
    const merged: Uint8Array[] = [base.data];
    let lastId = 0;
    let lastAt = base.starts_at;
    let n = 0;
    for (const r of this.selectFrom.iterate(roomId)) {
      if (bytes <= targetBytes && r.at >= cutoff) break;
      if (r.kind === HistoryRowKind.update) merged.push(r.data);
      bytes -= r.data.length;
      lastId = r.id;
      lastAt = r.at;
      n += 1;
    }
    if (n === 0) return 0;
    this.deleteThrough.run(roomId, lastId);
    this.updateBase.run(merged.length === 1 ? base.data : Y.mergeUpdates(merged), lastAt, bytes, roomId);
    return n;
  }

  /** Where the room's history starts; for a room with none yet, its stored document now. */
  start(roomId: string, now: number): HistoryStart {
    const base = this.selectBase.get(roomId);
    if (!base) return { base: this.storedState(roomId), startsAt: now, endsAt: now, dropped: false };
    return { base: base.data, startsAt: base.starts_at, endsAt: base.last_at, dropped: base.dropped === 1 };
  }

  /** The room's first `limit` presenter samples, in time order (each stored JSON parsed, unchecked: the caller reads it). */
  presenterSamples(roomId: string, limit: number): { at: number; view: unknown }[] {
    const dec = new TextDecoder();
    return this.selectKind.all(roomId, HistoryRowKind.presenter, limit).map((r) => ({ at: r.at, view: JSON.parse(dec.decode(r.data)) as unknown }));
  }

  /**
   * One page of the room's entries from `after` (exclusive; from the start of time `from` when
   * absent) to time `to` (inclusive), in order: at most `limit` entries and, past the first, at most
   * `maxBytes` of data. `more` says whether entries remain in the range.
   */
  page(roomId: string, from: number, to: number, after: HistoryCursor | undefined, limit: number, maxBytes: number): { rows: HistoryRow[]; more: boolean } {
    const cur = after ?? { at: from, id: 0 };
    const rows: HistoryRow[] = [];
    let bytes = 0;
    let more = false;
    for (const r of this.selectPage.iterate(roomId, to, cur.at, cur.at, cur.id)) {
      if (rows.length >= limit || (rows.length > 0 && bytes + r.data.length > maxBytes)) {
        more = true;
        break;
      }
      rows.push({ id: r.id, at: r.at, kind: r.kind as HistoryRowKind, data: r.data });
      bytes += r.data.length;
    }
    return { rows, more };
  }
}
