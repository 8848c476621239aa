import type pg from 'pg';
import * as Y from 'yjs';
import { EMPTY_STATE, HISTORY_TRIM_TO, HistoryRowKind, type HistoryRow } from '../../teaching/replay/history-store';
import type { ReplayHistory } from '../shared-store';
import { bytea, query, transaction, type Queryable } from './pool';

/** History rows read at once while dropping old entries (a 64 MiB history is walked page by page). */
const TRIM_PAGE_ROWS = 512;
/** History rows read at once while filling a page. */
const PAGE_READ_ROWS = 256;

interface BaseRow {
  data: Buffer;
  starts_at: number;
  last_at: number;
  bytes: number;
  dropped: boolean;
}

/**
 * Locks the room's head row (`room_heads`, created empty if missing) until the transaction ends:
 * the lock `RoomLog.appendRooms` takes too, so that everything written to one room's log and
 * history happens one transaction at a time, in commit order.
 */
export async function lockRoomHead(c: pg.PoolClient, roomId: string): Promise<void> {
  await c.query('INSERT INTO room_heads (room_id, last_id) VALUES ($1, 0) ON CONFLICT (room_id) DO UPDATE SET last_id = room_heads.last_id', [roomId]);
}

/**
 * The room's stored document (snapshot and log) as one update. One statement, so one view of the
 * database: a compaction committing in between cannot hide log rows the snapshot read does not cover.
 */
async function storedState(db: Queryable, operation: string, roomId: string): Promise<Uint8Array> {
  const rows = (await query<{ data: Buffer }>(db, operation, `WITH s AS (SELECT data, through_id FROM room_snapshots WHERE room_id = $1)
    SELECT data FROM (SELECT 0 AS part, 0::bigint AS id, data FROM s
      UNION ALL SELECT 1, id, data FROM room_updates WHERE room_id = $1 AND id > COALESCE((SELECT through_id FROM s), 0)) AS stored
    ORDER BY part, id`, [roomId])).rows;
  return rows.length === 0 ? EMPTY_STATE : rows.length === 1 ? rows[0]!.data : Y.mergeUpdates(rows.map((r) => r.data));
}

const selectBase = async (db: Queryable, operation: string, roomId: string): Promise<BaseRow | undefined> =>
  (await query<BaseRow>(db, operation, 'SELECT data, starts_at, last_at, bytes, dropped FROM room_history_base WHERE room_id = $1', [roomId])).rows[0];

/**
 * Inserts entries of one kind stamped `at` (or the room's last time, if later: times never go back
 * within a room), starting the room's history from its stored document if it has none. The caller
 * holds a transaction and the room's head lock (`lockRoomHead`), and records updates before it
 * appends them to the log, as the embedded store does.
 */
export async function recordEntries(c: pg.PoolClient, roomId: string, at: number, kind: HistoryRowKind, entries: readonly Uint8Array[]): Promise<void> {
  if (entries.length === 0) return;
  let base = await selectBase(c, 'history.record', roomId);
  if (!base) {
    await c.query('INSERT INTO room_history_base (room_id, data, starts_at, last_at, bytes, dropped) VALUES ($1, $2, $3, $3, 0, false)',
      [roomId, bytea(await storedState(c, 'history.record', roomId)), at]);
    base = { data: Buffer.alloc(0), starts_at: at, last_at: at, bytes: 0, dropped: false };
  }
  const t = Math.max(at, base.last_at);
  let bytes = 0;
  for (const e of entries) bytes += e.length;
  await c.query('INSERT INTO room_history (room_id, at, kind, data) SELECT $1, $2, $3, d FROM unnest($4::bytea[]) WITH ORDINALITY AS x(d, n) ORDER BY n',
    [roomId, t, kind, entries.map(bytea)]);
  await c.query('UPDATE room_history_base SET last_at = $1, bytes = bytes + $2 WHERE room_id = $3', [t, bytes, roomId]);
}

type EntryRow = { id: number; at: number; kind: number; data: Buffer };

/** Drops the oldest entries past `cutoff` or `targetBytes`, merging dropped updates into the base; the caller holds the room's head lock. */
async function trimNow(c: pg.PoolClient, roomId: string, cutoff: number, targetBytes: number): Promise<number> {
  const base = await selectBase(c, 'history.trim', roomId);
  if (!base) return 0;
  let bytes = base.bytes;
  const merged: Uint8Array[] = [base.data];
  let last: { at: number; id: number } | undefined;
  let lastAt = base.starts_at;
  let n = 0;
  walk: for (;;) {
    const page = (await c.query<EntryRow>(`SELECT id, at, kind, data FROM room_history WHERE room_id = $1 AND ($2::bigint IS NULL OR at > $2 OR (at = $2 AND id > $3))
      ORDER BY at, id LIMIT ${TRIM_PAGE_ROWS}`, [roomId, last?.at ?? null, last?.id ?? 0])).rows;
    for (const r of page) {
      if (bytes <= targetBytes && r.at >= cutoff) break walk;
      if (r.kind === HistoryRowKind.update) merged.push(r.data);
      bytes -= r.data.length;
      last = { at: r.at, id: r.id };
      lastAt = r.at;
      n += 1;
    }
    if (page.length < TRIM_PAGE_ROWS) break;
  }
  if (n === 0 || !last) return 0;
  await c.query('DELETE FROM room_history WHERE room_id = $1 AND id <= $2', [roomId, last.id]);
  await c.query('UPDATE room_history_base SET data = $1, starts_at = $2, bytes = $3, dropped = true WHERE room_id = $4',
    [bytea(merged.length === 1 ? base.data : Y.mergeUpdates(merged)), lastAt, bytes, roomId]);
  return n;
}

/**
 * Each room's replay history in PostgreSQL (tables `room_history`, `room_history_base`), with the
 * embedded `HistoryStore`'s semantics (docs/storage.md, "Replay history"). Updates are recorded by
 * `RoomLog.appendRooms` in its own transaction (`recordEntries`); presenter samples and trims take
 * the room's head lock, as appends do.
 */
export function postgresHistory(pool: pg.Pool): ReplayHistory {
  return {
    recordPresenter: (roomId, at, view) => transaction(pool, 'history.recordPresenter', async (c) => {
      await lockRoomHead(c, roomId);
      await recordEntries(c, roomId, at, HistoryRowKind.presenter, [new TextEncoder().encode(JSON.stringify(view))]);
    }),
    trim: async (roomId, limits, now) => {
      const base = await selectBase(pool, 'history.trim', roomId);
      if (!base) return 0;
      const cutoff = now - limits.historySeconds * 1000;
      const oldest = (await query<{ at: number }>(pool, 'history.trim', 'SELECT at FROM room_history WHERE room_id = $1 ORDER BY at, id LIMIT 1', [roomId])).rows[0];
      if (base.bytes <= limits.historyBytes && (!oldest || oldest.at >= cutoff)) return 0;
      const target = base.bytes > limits.historyBytes ? Math.floor(limits.historyBytes * HISTORY_TRIM_TO) : base.bytes;
      return transaction(pool, 'history.trim', async (c) => {
        await lockRoomHead(c, roomId);
        return trimNow(c, roomId, cutoff, target);
      });
    },
    start: async (roomId, now) => {
      const base = await selectBase(pool, 'history.start', roomId);
      if (!base) return { base: await storedState(pool, 'history.start', roomId), startsAt: now, endsAt: now, dropped: false };
      return { base: base.data, startsAt: base.starts_at, endsAt: base.last_at, dropped: base.dropped };
    },
    presenterSamples: async (roomId, limit) => {
      const dec = new TextDecoder();
      return (await query<{ at: number; data: Buffer }>(pool, 'history.presenterSamples', 'SELECT at, data FROM room_history WHERE room_id = $1 AND kind = $2 ORDER BY at, id LIMIT $3',
        [roomId, HistoryRowKind.presenter, limit])).rows.map((r) => ({ at: r.at, view: JSON.parse(dec.decode(r.data)) as unknown }));
    },
    page: async (roomId, from, to, after, limit, maxBytes) => {
      let cur = after ?? { at: from, id: 0 };
      const rows: HistoryRow[] = [];
      let bytes = 0;
      // Read a few hundred rows at a time, so that a page cut by its byte bound reads little past it;
      // one row past `limit` says whether more remain.
      for (;;) {
        const want = Math.min(limit + 1 - rows.length, PAGE_READ_ROWS);
        const found = (await query<EntryRow>(pool, 'history.page', `SELECT id, at, kind, data FROM room_history
          WHERE room_id = $1 AND at <= $2 AND (at > $3 OR (at = $3 AND id > $4)) ORDER BY at, id LIMIT $5`, [roomId, to, cur.at, cur.id, want])).rows;
        for (const r of found) {
          if (rows.length >= limit || (rows.length > 0 && bytes + r.data.length > maxBytes)) return { rows, more: true };
          rows.push({ id: r.id, at: r.at, kind: r.kind as HistoryRowKind, data: r.data });
          bytes += r.data.length;
          cur = r;
        }
        if (found.length < want) return { rows, more: false };
      }
    },
  };
}
