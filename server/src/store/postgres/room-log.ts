import type pg from 'pg';
import { HistoryRowKind } from '../../teaching/replay/history-store';
import type { RoomLog } from '../shared-store';
import { recordEntries } from './history';
import { bytea, transaction } from './pool';

/**
 * The room update log in PostgreSQL (tables `room_heads`, `room_updates`, `room_snapshots`). An
 * append also records its updates in the rooms' replay history (`history.ts`), in the same
 * transaction and under the same head locks, stamped with the commit's wall-clock time (`now`).
 */
export function postgresRoomLog(pool: pg.Pool, now: () => number = Date.now): RoomLog {
  return {
    // One snapshot of the database for both reads: a compaction between them could otherwise
    // delete log rows the older snapshot row does not cover.
    load: (roomId) => transaction(pool, 'roomLog.load', async (c) => {
      const snap = (await c.query<{ data: Buffer; through_id: number }>('SELECT data, through_id FROM room_snapshots WHERE room_id = $1', [roomId])).rows[0];
      const rows = (await c.query<{ id: number; data: Buffer }>('SELECT id, data FROM room_updates WHERE room_id = $1 AND id > $2 ORDER BY id', [roomId, snap?.through_id ?? 0])).rows;
      let logBytes = 0;
      for (const r of rows) logBytes += r.data.length;
      return { snapshot: snap?.data, updates: rows.map((r) => r.data), logBytes, lastId: rows.at(-1)?.id ?? snap?.through_id ?? 0 };
    }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),

    appendRooms: (batches) => transaction(pool, 'roomLog.appendRooms', async (c) => {
      // Rooms' head rows are locked in one order (by id) in every transaction, so that two
      // instances committing groups that share rooms wait for each other instead of deadlocking.
      const order = batches.map((_, i) => i).sort((a, b) => (batches[a]!.roomId < batches[b]!.roomId ? -1 : batches[a]!.roomId > batches[b]!.roomId ? 1 : a - b));
      const last: number[] = new Array<number>(batches.length);
      const at = now();
      for (const i of order) {
        const { roomId, updates } = batches[i]!;
        const head = await c.query<{ last_id: number }>(
          `INSERT INTO room_heads (room_id, last_id) VALUES ($1, $2)
           ON CONFLICT (room_id) DO UPDATE SET last_id = room_heads.last_id + EXCLUDED.last_id RETURNING last_id`,
          [roomId, updates.length],
        );
        const lastId = head.rows[0]!.last_id;
        // Under the head's lock, before the log rows: a room's first history entry starts from its stored document without them.
        await recordEntries(c, roomId, at, HistoryRowKind.update, updates);
        await c.query(
          'INSERT INTO room_updates (room_id, id, data) SELECT $1, $2::bigint + n, u FROM unnest($3::bytea[]) WITH ORDINALITY AS x(u, n)',
          [roomId, lastId - updates.length, updates.map(bytea)],
        );
        last[i] = lastId;
      }
      return last;
    }),

    compact: async (roomId, snapshot, throughId) => {
      await transaction(pool, 'roomLog.compact', async (c) => {
        // A snapshot never replaces a newer one (two instances may compact one room).
        await c.query(
          `INSERT INTO room_snapshots (room_id, data, through_id) VALUES ($1, $2, $3)
           ON CONFLICT (room_id) DO UPDATE SET data = EXCLUDED.data, through_id = EXCLUDED.through_id
           WHERE room_snapshots.through_id < EXCLUDED.through_id`,
          [roomId, bytea(snapshot), throughId],
        );
        await c.query('DELETE FROM room_updates WHERE room_id = $1 AND id <= $2', [roomId, throughId]);
      });
    },
  };
}
