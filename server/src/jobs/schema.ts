import type Database from 'better-sqlite3';
import { bindRunnerTokens } from '../store/migrations';

/**
 * Creates the job queue's tables in the server's SQLite database when they are missing: capture
 * jobs (one row per job; `attempt` counts leases) and runner tokens (stored as sha256 only, each
 * bound to the runner name it was created with), migrating older runner tokens once and adding the
 * version columns to an older job table.
 */
export function migrateJobs(db: Database.Database, now: number = Date.now()): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS capture_jobs (
      id TEXT PRIMARY KEY,
      room_id TEXT NOT NULL,
      request TEXT NOT NULL,
      requested_by TEXT NOT NULL,
      wanted_runner TEXT,
      status TEXT NOT NULL,
      attempt INTEGER NOT NULL DEFAULT 0,
      max_attempts INTEGER NOT NULL,
      runner_id TEXT,
      runner_name TEXT,
      lease_expires_at INTEGER,
      requeued_at INTEGER,
      phase TEXT,
      result_attempt INTEGER,
      documents TEXT NOT NULL DEFAULT '[]',
      analyses TEXT,
      provenance TEXT,
      error TEXT,
      version_of TEXT,
      version INTEGER,
      carried TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS capture_jobs_status ON capture_jobs (status, created_at);
    CREATE INDEX IF NOT EXISTS capture_jobs_room ON capture_jobs (room_id, created_at);
    CREATE TABLE IF NOT EXISTS runner_tokens (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      revoked_at INTEGER
    );
  `);
  addVersionColumns(db);
  bindRunnerTokens(db, LOCAL_RUNNER, now);
}

/**
 * Data directories from before "Run again": adds the capture a job re-runs (`version_of`), its
 * version number and what carrying its annotations over did (`carried`, JSON). Idempotent.
 */
function addVersionColumns(db: Database.Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(capture_jobs)').all() as { name: string }[]).map((c) => c.name));
  if (columns.has('version_of')) return;
  db.exec('ALTER TABLE capture_jobs ADD COLUMN version_of TEXT; ALTER TABLE capture_jobs ADD COLUMN version INTEGER; ALTER TABLE capture_jobs ADD COLUMN carried TEXT;');
}

/** The runner name reserved for the server's own local runner: only a token the server minted may register as it. */
export const LOCAL_RUNNER = 'local';
