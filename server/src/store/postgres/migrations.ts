import type pg from 'pg';
import { transaction } from './pool';

/** One change to the PostgreSQL schema, applied once, in order, in one transaction. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The schema, as the list of its changes. Never edit an applied one; add the next version.
 * Room update ids are numbered per room (`room_heads.last_id`, taken under the head row's lock), so
 * that within a room ids follow commit order even when many instances append: with one global
 * sequence, an id drawn by a transaction that commits late could fall below a snapshot's
 * `through_id` and be skipped by every later load.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'rooms, room log, capture jobs',
    sql: `
      CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE tokens (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        role TEXT NOT NULL,
        hash BYTEA NOT NULL UNIQUE,
        PRIMARY KEY (room_id, role)
      );
      CREATE TABLE room_heads (
        room_id TEXT PRIMARY KEY,
        last_id BIGINT NOT NULL
      );
      CREATE TABLE room_updates (
        room_id TEXT NOT NULL,
        id BIGINT NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (room_id, id)
      );
      CREATE TABLE room_snapshots (
        room_id TEXT PRIMARY KEY,
        data BYTEA NOT NULL,
        through_id BIGINT NOT NULL
      );
      CREATE TABLE capture_jobs (
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
        lease_expires_at BIGINT,
        requeued_at BIGINT,
        phase TEXT,
        result_attempt INTEGER,
        documents TEXT NOT NULL DEFAULT '[]',
        analyses TEXT,
        provenance TEXT,
        error TEXT,
        version_of TEXT,
        version INTEGER,
        carried TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX capture_jobs_status ON capture_jobs (status, created_at, id);
      CREATE INDEX capture_jobs_room ON capture_jobs (room_id, created_at);
    `,
  },
  {
    version: 2,
    name: 'blobs in chunks, analysis parts, documents',
    // A blob's bodies (gzip of the text, gzip of the whole analysis) are cut into `blob_chunks`
    // rows (postgres/documents.ts): a trace's text may be gigabytes, past what one bytea holds.
    sql: `
      CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        bytes BIGINT NOT NULL,
        gzip_bytes BIGINT NOT NULL,
        analysis_bytes BIGINT NOT NULL
      );
      CREATE TABLE blob_chunks (
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        body SMALLINT NOT NULL,
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (sha256, body, seq)
      );
      CREATE TABLE analysis_parts (
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        part TEXT NOT NULL,
        version INTEGER NOT NULL,
        gzip BYTEA NOT NULL,
        PRIMARY KEY (sha256, part)
      );
      CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        title TEXT NOT NULL,
        kind TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        added_by TEXT,
        capture_id TEXT,
        module_group TEXT,
        module_name TEXT,
        module_number INTEGER,
        module_path TEXT,
        pass_index INTEGER,
        pass_pipeline TEXT,
        pass_name TEXT,
        pass_when TEXT
      );
      CREATE INDEX documents_by_room ON documents (room_id, created_at);
      CREATE INDEX documents_by_path ON documents (room_id, module_path);
      CREATE INDEX documents_by_blob ON documents (room_id, sha256);
    `,
  },
  {
    version: 3,
    name: 'trace reductions, blocks, overviews',
    sql: `
      CREATE TABLE trace_reductions (
        sha256 TEXT PRIMARY KEY REFERENCES blobs(sha256),
        version INTEGER NOT NULL,
        summary_gzip BYTEA NOT NULL,
        ops_gzip BYTEA NOT NULL,
        strings_gzip BYTEA NOT NULL
      );
      CREATE TABLE trace_blocks (
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        track INTEGER NOT NULL,
        block INTEGER NOT NULL,
        start_us DOUBLE PRECISION NOT NULL,
        end_us DOUBLE PRECISION NOT NULL,
        gzip BYTEA NOT NULL,
        PRIMARY KEY (sha256, track, block)
      );
      CREATE TABLE trace_overviews (
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        version TEXT NOT NULL,
        gzip BYTEA NOT NULL,
        PRIMARY KEY (sha256, version)
      );
    `,
  },
  {
    version: 4,
    name: 'replay history',
    // Ids come from one identity, but every writer of a room's history holds the room's head row
    // (room_heads) while it writes, so within a room ids and times follow commit order.
    sql: `
      CREATE TABLE room_history (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        room_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        kind SMALLINT NOT NULL,
        data BYTEA NOT NULL
      );
      CREATE INDEX room_history_by_time ON room_history (room_id, at, id);
      CREATE TABLE room_history_base (
        room_id TEXT PRIMARY KEY,
        data BYTEA NOT NULL,
        starts_at BIGINT NOT NULL,
        last_at BIGINT NOT NULL,
        bytes BIGINT NOT NULL,
        dropped BOOLEAN NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'invitations, drills, drill answers',
    sql: `
      CREATE TABLE invitations (
        id TEXT PRIMARY KEY,
        hash BYTEA NOT NULL UNIQUE,
        note TEXT NOT NULL,
        uses INTEGER NOT NULL,
        uses_left INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        revoked_at BIGINT
      );
      CREATE TABLE drills (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        doc_id TEXT NOT NULL,
        items TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        revealed_at BIGINT
      );
      CREATE INDEX drills_by_room ON drills (room_id, created_at);
      CREATE TABLE drill_answers (
        drill_id TEXT NOT NULL REFERENCES drills(id),
        person TEXT NOT NULL,
        name TEXT NOT NULL,
        question_id TEXT NOT NULL,
        answer TEXT NOT NULL,
        correct INTEGER NOT NULL,
        answered_at BIGINT NOT NULL,
        first_at BIGINT NOT NULL,
        PRIMARY KEY (drill_id, person, question_id)
      );
    `,
  },
  {
    version: 6,
    name: 'runner tokens',
    sql: `
      CREATE TABLE runner_tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT,
        server_minted INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    version: 7,
    name: 'staged blobs, imported file sha',
    // An upload's sha256 is set only once its whole body is written and verified (postgres/staging.ts);
    // `file_sha256` is the sha256 of the file an import read (a gzipped trace's, not its text's).
    sql: `
      CREATE TABLE staged_uploads (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL,
        sha256 TEXT,
        bytes BIGINT NOT NULL,
        touched_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX staged_uploads_by_blob ON staged_uploads (room_id, sha256);
      CREATE INDEX staged_uploads_by_time ON staged_uploads (touched_at);
      CREATE TABLE staged_chunks (
        upload_id TEXT NOT NULL REFERENCES staged_uploads(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (upload_id, seq)
      );
      ALTER TABLE documents ADD COLUMN file_sha256 TEXT;
    `,
  },
  {
    version: 8,
    name: 'live runners',
    // The runners connected to every instance (postgres/runner-registry.ts): one row per runner
    // (its token and name), the connection (`session`) that wrote it, alive until `expires_at`.
    sql: `
      CREATE TABLE live_runners (
        runner_id TEXT PRIMARY KEY,
        instance_id TEXT NOT NULL,
        session TEXT NOT NULL,
        name TEXT NOT NULL,
        capabilities TEXT NOT NULL,
        connected_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX live_runners_by_expiry ON live_runners (expires_at);
    `,
  },
];

/** Arbitrary key of the advisory lock that makes instances starting together migrate one at a time. */
const MIGRATION_LOCK = 7_385_001;

/**
 * Brings the database to the latest schema: under an advisory lock (so that instances starting
 * at once do not race), applies each migration not yet in `seam_migrations`, all in one
 * transaction. Returns the versions it applied.
 */
export async function migrate(pool: pg.Pool, now: number = Date.now()): Promise<number[]> {
  return transaction(pool, 'migrate', async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS seam_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const done = new Set((await c.query<{ version: number }>('SELECT version FROM seam_migrations')).rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await c.query(m.sql);
      await c.query('INSERT INTO seam_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, now]);
      applied.push(m.version);
    }
    return applied;
  });
}
