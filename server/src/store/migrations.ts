import type Database from 'better-sqlite3';
import * as Y from 'yjs';
import { RoomKey } from '@seam/shared/model';

/** The room document's entry for one dump, as far as provenance goes. */
interface DocumentEntry {
  readonly addedBy?: unknown;
  readonly captureId?: unknown;
}

const hasColumn = (db: Database.Database, table: string, column: string): boolean =>
  (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).some((c) => c.name === column);

/**
 * Data directories from before the documents table held provenance: adds `added_by` and
 * `capture_id`, then fills them for existing rows from each room document's server-only
 * `documents` map (where ingest has always written them). Runs once, in one transaction; returns
 * how many rows it filled. A room whose stored updates cannot be read keeps empty provenance.
 */
export function addDocumentProvenance(db: Database.Database): number {
  if (hasColumn(db, 'documents', 'added_by')) return 0;
  return db.transaction(() => {
    db.exec('ALTER TABLE documents ADD COLUMN added_by TEXT; ALTER TABLE documents ADD COLUMN capture_id TEXT;');
    const roomIds = (db.prepare('SELECT DISTINCT room_id FROM documents').all() as { room_id: string }[]).map((r) => r.room_id);
    const snapshot = db.prepare<[string], { data: Buffer; through_id: number }>('SELECT data, through_id FROM room_snapshots WHERE room_id = ?');
    const log = db.prepare<[string, number], { data: Buffer }>('SELECT data FROM room_updates WHERE room_id = ? AND id > ? ORDER BY id');
    const fill = db.prepare('UPDATE documents SET added_by = ?, capture_id = ? WHERE room_id = ? AND id = ?');
    let filled = 0;
    for (const roomId of roomIds) {
      const doc = new Y.Doc();
      try {
        const snap = snapshot.get(roomId);
        if (snap) Y.applyUpdate(doc, snap.data);
        for (const u of log.all(roomId, snap?.through_id ?? 0)) Y.applyUpdate(doc, u.data);
      } catch {
        // An unreadable log is the room loader's to report; provenance stays empty here.
        doc.destroy();
        continue;
      }
      for (const [id, value] of doc.getMap<DocumentEntry>(RoomKey.documents)) {
        const addedBy = typeof value.addedBy === 'string' ? value.addedBy : null;
        const captureId = typeof value.captureId === 'string' ? value.captureId : null;
        if (addedBy === null && captureId === null) continue;
        filled += fill.run(addedBy, captureId, roomId, id).changes;
      }
      doc.destroy();
    }
    return filled;
  })();
}

/**
 * Data directories from before dump folders could be imported: adds the module columns of a
 * document (`ModuleRef`: group id, module name and number, path in the folder, and for a per-pass
 * dump its index, pipeline, pass and when), empty for every existing row, and an index to find a
 * room's file by its path. Runs once; returns whether it changed the schema.
 */
export function addDocumentModules(db: Database.Database): boolean {
  if (hasColumn(db, 'documents', 'module_group')) return false;
  db.transaction(() => {
    db.exec(`ALTER TABLE documents ADD COLUMN module_group TEXT;
      ALTER TABLE documents ADD COLUMN module_name TEXT;
      ALTER TABLE documents ADD COLUMN module_number INTEGER;
      ALTER TABLE documents ADD COLUMN module_path TEXT;
      ALTER TABLE documents ADD COLUMN pass_index INTEGER;
      ALTER TABLE documents ADD COLUMN pass_pipeline TEXT;
      ALTER TABLE documents ADD COLUMN pass_name TEXT;
      ALTER TABLE documents ADD COLUMN pass_when TEXT;
      CREATE INDEX IF NOT EXISTS documents_by_path ON documents(room_id, module_path);`);
  })();
  return true;
}

/**
 * Data directories from before runner tokens were bound to one runner name: every token already
 * records the name it was created with, which from now on is the only name it may register as.
 * Adds `server_minted` (1 for the tokens the server mints for its own runners, the only ones that
 * may use the reserved name `local`) and revokes the live `local` tokens made before, since they
 * cannot be told apart from one the operator made (the server mints a fresh one at each start).
 * Runs once; returns how many tokens it revoked.
 */
export function bindRunnerTokens(db: Database.Database, localName: string, now: number): number {
  if (hasColumn(db, 'runner_tokens', 'server_minted')) return 0;
  return db.transaction(() => {
    db.exec('ALTER TABLE runner_tokens ADD COLUMN server_minted INTEGER NOT NULL DEFAULT 0');
    return db.prepare('UPDATE runner_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(now, localName).changes;
  })();
}

/**
 * Data directories from before drills: adds the tables of drills (their questions with the
 * expected answers, which only the server reads) and of their answers (one per person and
 * question). Idempotent; returns whether it created them.
 */
export function addDrillTables(db: Database.Database): boolean {
  const had = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'drills'").get() as { n: number }).n > 0;
  db.exec(`CREATE TABLE IF NOT EXISTS drills (
      id TEXT PRIMARY KEY,
      room_id TEXT NOT NULL REFERENCES rooms(id),
      doc_id TEXT NOT NULL,
      items TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      revealed_at INTEGER
    );
    CREATE INDEX IF NOT EXISTS drills_by_room ON drills(room_id, created_at);
    CREATE TABLE IF NOT EXISTS drill_answers (
      drill_id TEXT NOT NULL REFERENCES drills(id),
      person TEXT NOT NULL,
      name TEXT NOT NULL,
      question_id TEXT NOT NULL,
      answer TEXT NOT NULL,
      correct INTEGER NOT NULL,
      answered_at INTEGER NOT NULL,
      first_at INTEGER NOT NULL,
      PRIMARY KEY (drill_id, person, question_id)
    );`);
  return !had;
}

/**
 * Data directories from before replay: adds the room history (every committed update and
 * presenter sample with its time, kept apart from the compacted log) and, per room, the document
 * as it was where that history starts (docs/storage.md). Rooms created before start their history
 * at their first commit after this. Idempotent; returns whether it created the tables.
 */
export function addRoomHistory(db: Database.Database): boolean {
  const had = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'room_history'").get() as { n: number }).n > 0;
  db.exec(`CREATE TABLE IF NOT EXISTS room_history (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      room_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      kind INTEGER NOT NULL,
      data BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS room_history_by_time ON room_history(room_id, at, id);
    CREATE TABLE IF NOT EXISTS room_history_base (
      room_id TEXT PRIMARY KEY,
      data BLOB NOT NULL,
      starts_at INTEGER NOT NULL,
      last_at INTEGER NOT NULL,
      bytes INTEGER NOT NULL,
      dropped INTEGER NOT NULL
    );`);
  return !had;
}

/**
 * Data directories from before an import recorded the file it read: adds `file_sha256`, the
 * sha256 of that file when it is not the document's own (a gzipped trace, stored as its text's),
 * so that importing the same file again counts it unchanged. Existing rows keep it empty. Runs
 * once; returns whether it changed the schema.
 */
export function addImportedFileSha(db: Database.Database): boolean {
  if (hasColumn(db, 'documents', 'file_sha256')) return false;
  db.exec('ALTER TABLE documents ADD COLUMN file_sha256 TEXT');
  return true;
}
