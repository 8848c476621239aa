import type Database from 'better-sqlite3';
import type { SyncMode } from '../config';
import { openDatabase } from './db';
import { DocumentsStore } from './documents-store';
import { RoomsStore } from './rooms-store';
import { UpdatesStore } from './updates-store';

export { DocumentsStore, RoomsStore, UpdatesStore };
export type { RoomRow } from './rooms-store';

/** The embedded store: one SQLite database in WAL mode, split by concern. */
export interface Store {
  readonly db: Database.Database;
  readonly rooms: RoomsStore;
  readonly updates: UpdatesStore;
  readonly documents: DocumentsStore;
  close(): void;
}

/** Opens the store in `dataDir` (created if missing). */
export function openStore(dataDir: string, syncMode: SyncMode): Store {
  const db = openDatabase(dataDir, syncMode);
  return {
    db,
    rooms: new RoomsStore(db),
    updates: new UpdatesStore(db),
    documents: new DocumentsStore(db),
    close: () => db.close(),
  };
}
