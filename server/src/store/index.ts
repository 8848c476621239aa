import type Database from 'better-sqlite3';
import { join } from 'node:path';
import type { SyncMode } from '../config';
import { Checkpointer, DEFAULT_CHECKPOINT, type CheckpointOptions } from './checkpointer';
import { openDatabase } from './db';
import { DocumentsStore } from './documents-store';
import { TraceStore } from '../trace/store';
import { RoomsStore } from './rooms-store';
import { UpdatesStore } from './updates-store';

export { Checkpointer, DEFAULT_CHECKPOINT, DocumentsStore, RoomsStore, UpdatesStore };
export type { CheckpointOptions, CheckpointRound } from './checkpointer';
export type { RoomRow } from './rooms-store';
export type { RoomBatch } from './updates-store';

/** The embedded store: one SQLite database in WAL mode, split by concern. */
export interface Store {
  readonly db: Database.Database;
  readonly rooms: RoomsStore;
  readonly updates: UpdatesStore;
  readonly documents: DocumentsStore;
  /** Reduced profiler traces, by content. */
  readonly traces: TraceStore;
  /** Checkpoints the WAL off the event loop; the main connection never does. */
  readonly checkpoints: Checkpointer;
  /** Stops the checkpointer, then closes the database. */
  close(): void;
}

/** Opens the store in `dataDir` (created if missing), checkpointing as `checkpoint` says (default `DEFAULT_CHECKPOINT`). */
export function openStore(dataDir: string, syncMode: SyncMode, checkpoint: CheckpointOptions = DEFAULT_CHECKPOINT): Store {
  const db = openDatabase(dataDir, syncMode);
  db.pragma('wal_autocheckpoint = 0');
  // After a checkpoint the next commit reuses the WAL from its start and cuts it back to this size.
  db.pragma(`journal_size_limit = ${checkpoint.maxWalBytes}`);
  const checkpoints = new Checkpointer(join(dataDir, 'seam.db'), syncMode, checkpoint, (message) => {
    process.emitWarning(`WAL checkpoint failed: ${message}`);
  });
  return {
    db,
    rooms: new RoomsStore(db),
    updates: new UpdatesStore(db),
    documents: new DocumentsStore(db),
    traces: new TraceStore(db),
    checkpoints,
    close: () => {
      checkpoints.stop();
      db.close();
    },
  };
}
