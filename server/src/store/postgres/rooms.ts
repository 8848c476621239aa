import type pg from 'pg';
import type { Role } from '@seam/shared/model';
import type { RoomDirectory } from '../shared-store';
import { query, transaction, type Queryable } from './pool';

/** Arbitrary key of the advisory lock under which room creations count the rooms (`create`'s check). */
const CREATE_LOCK = 7_385_003;

/** How many rooms there are, read through `db` (the pool, or a transaction's client). */
async function countRooms(db: Queryable): Promise<number> {
  return Number((await query<{ n: number }>(db, 'rooms.count', 'SELECT COUNT(*)::bigint AS n FROM rooms')).rows[0]?.n ?? 0);
}

/** Rooms and their role token hashes in PostgreSQL (tables `rooms`, `tokens`). */
export function postgresRooms(pool: pg.Pool): RoomDirectory {
  return {
    count: () => countRooms(pool),
    create: async (room, hashes, check) => {
      await transaction(pool, 'rooms.create', async (c) => {
        if (check) {
          // Creations that check the bound wait for each other, so that they count each other's rooms.
          await c.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
          check(await countRooms(c));
        }
        await c.query('INSERT INTO rooms (id, title, created_at) VALUES ($1, $2, $3)', [room.id, room.title, room.createdAt]);
        for (const [role, hash] of Object.entries(hashes)) await c.query('INSERT INTO tokens (room_id, role, hash) VALUES ($1, $2, $3)', [room.id, role, hash]);
      });
    },
    get: async (id) => {
      const r = (await query<{ id: string; title: string; created_at: number }>(pool, 'rooms.get', 'SELECT id, title, created_at FROM rooms WHERE id = $1', [id])).rows[0];
      return r && { id: r.id, title: r.title, createdAt: r.created_at };
    },
    lookupToken: async (hash) => {
      const r = (await query<{ room_id: string; role: Role }>(pool, 'rooms.lookupToken', 'SELECT room_id, role FROM tokens WHERE hash = $1', [hash])).rows[0];
      return r && { roomId: r.room_id, role: r.role };
    },
    tokenHash: async (roomId, role) =>
      (await query<{ hash: Buffer }>(pool, 'rooms.tokenHash', 'SELECT hash FROM tokens WHERE room_id = $1 AND role = $2', [roomId, role])).rows[0]?.hash,
    replaceToken: async (roomId, role, hash) => {
      await query(pool, 'rooms.replaceToken', 'UPDATE tokens SET hash = $1 WHERE room_id = $2 AND role = $3', [hash, roomId, role]);
    },
  };
}
