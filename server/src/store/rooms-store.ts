import type Database from 'better-sqlite3';
import type { Role } from '@seam/shared/model';

export interface RoomRow {
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
}

/** Rooms and the hashes of their role tokens. */
export class RoomsStore {
  private readonly insertRoom;
  private readonly insertToken;
  private readonly selectRoom;
  private readonly selectToken;
  private readonly updateToken;
  private readonly selectHash;
  private readonly countStmt;

  constructor(private readonly db: Database.Database) {
    this.insertRoom = db.prepare('INSERT INTO rooms (id, title, created_at) VALUES (?, ?, ?)');
    this.insertToken = db.prepare('INSERT INTO tokens (room_id, role, hash) VALUES (?, ?, ?)');
    this.selectRoom = db.prepare<[string], { id: string; title: string; created_at: number }>('SELECT id, title, created_at FROM rooms WHERE id = ?');
    this.selectToken = db.prepare<[Buffer], { room_id: string; role: Role }>('SELECT room_id, role FROM tokens WHERE hash = ?');
    this.updateToken = db.prepare('UPDATE tokens SET hash = ? WHERE room_id = ? AND role = ?');
    this.selectHash = db.prepare<[string, string], { hash: Buffer }>('SELECT hash FROM tokens WHERE room_id = ? AND role = ?');
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM rooms');
  }

  /** How many rooms there are. */
  count(): number {
    return this.countStmt.get()?.n ?? 0;
  }

  /**
   * Creates a room with one token hash per role, atomically, after `check` passes inside the
   * transaction with the number of rooms there (a bound, exact however many create at once).
   */
  create(room: RoomRow, hashes: Readonly<Record<Role, Buffer>>, check?: (rooms: number) => void): void {
    this.db.transaction(() => {
      check?.(this.count());
      this.insertRoom.run(room.id, room.title, room.createdAt);
      for (const [role, hash] of Object.entries(hashes)) this.insertToken.run(room.id, role, hash);
    })();
  }

  get(id: string): RoomRow | undefined {
    const r = this.selectRoom.get(id);
    return r && { id: r.id, title: r.title, createdAt: r.created_at };
  }

  /** The room and role a token hash grants, if any. */
  lookupToken(hash: Buffer): { roomId: string; role: Role } | undefined {
    const r = this.selectToken.get(hash);
    return r && { roomId: r.room_id, role: r.role };
  }

  /** The current token hash of one role. */
  tokenHash(roomId: string, role: Role): Buffer | undefined {
    return this.selectHash.get(roomId, role)?.hash;
  }

  /** Replaces the token hash of one role; the old token stops working at once. */
  replaceToken(roomId: string, role: Role, hash: Buffer): void {
    this.updateToken.run(hash, roomId, role);
  }
}
