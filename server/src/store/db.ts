import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SyncMode } from '../config';
import { addDocumentModules, addDocumentProvenance, addDrillTables, addImportedFileSha, addRoomHistory } from './migrations';

/**
 * The schema, applied idempotently at open (then the migrations of older data directories). One
 * file, `seam.db`, in the data directory.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS rooms (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  room_id TEXT NOT NULL REFERENCES rooms(id),
  role TEXT NOT NULL,
  hash BLOB NOT NULL UNIQUE,
  PRIMARY KEY (room_id, role)
);
CREATE TABLE IF NOT EXISTS room_updates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  room_id TEXT NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS room_updates_by_room ON room_updates(room_id, id);
CREATE TABLE IF NOT EXISTS room_snapshots (
  room_id TEXT PRIMARY KEY,
  data BLOB NOT NULL,
  through_id INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
  sha256 TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  gzip BLOB NOT NULL,
  analysis_gzip BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS analysis_parts (
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  part TEXT NOT NULL,
  version INTEGER NOT NULL,
  gzip BLOB NOT NULL,
  PRIMARY KEY (sha256, part)
);
CREATE TABLE IF NOT EXISTS documents (
  id TEXT PRIMARY KEY,
  room_id TEXT NOT NULL REFERENCES rooms(id),
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  added_by TEXT,
  capture_id TEXT
);
CREATE INDEX IF NOT EXISTS documents_by_room ON documents(room_id, created_at);
CREATE TABLE IF NOT EXISTS trace_reductions (
  sha256 TEXT PRIMARY KEY REFERENCES blobs(sha256),
  version INTEGER NOT NULL,
  summary_gzip BLOB NOT NULL,
  ops_gzip BLOB NOT NULL,
  strings_gzip BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS trace_blocks (
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  track INTEGER NOT NULL,
  block INTEGER NOT NULL,
  start_us REAL NOT NULL,
  end_us REAL NOT NULL,
  gzip BLOB NOT NULL,
  PRIMARY KEY (sha256, track, block)
);
`;

/**
 * Opens (creating if needed) `DATA_DIR/seam.db` in WAL mode with the given `synchronous` setting.
 * NORMAL survives any process crash; FULL also survives power loss (docs/storage.md).
 */
export function openDatabase(dataDir: string, syncMode: SyncMode): Database.Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'seam.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${syncMode}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  addDocumentProvenance(db);
  addDocumentModules(db);
  addDrillTables(db);
  addRoomHistory(db);
  addImportedFileSha(db);
  return db;
}
