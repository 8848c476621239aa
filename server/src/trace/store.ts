import type Database from 'better-sqlite3';
import { OVERVIEW_VERSION, TRACE_FORM_VERSION, type StoredTrace } from './stored-form';

/** A stored reduction's parts served whole, gzipped JSON. */
export type TracePart = 'summary' | 'ops' | 'strings';

/** The `trace_reductions` column of each part. */
export const TRACE_PART_COLUMN: Record<TracePart, string> = { summary: 'summary_gzip', ops: 'ops_gzip', strings: 'strings_gzip' };

/**
 * Reduced traces, by the sha256 of the trace's (decompressed) bytes, stored once across rooms:
 * `trace_reductions` (summary, per-op aggregates, string table; gzipped JSON, in the
 * `TRACE_FORM_VERSION` they were written in) and `trace_blocks` (each track's events in blocks,
 * with the time span each covers, so a window reads only the blocks it overlaps) and
 * `trace_overviews` (the overview a timeline draws first, by `OVERVIEW_VERSION`: written with the
 * reduction, or computed later from the blocks for a reduction stored before overviews were).
 */
export class TraceStore {
  private readonly hasStmt;
  private readonly putReduction;
  private readonly putBlock;
  private readonly partStmts: Record<TracePart, Database.Statement<[string, number], { gzip: Buffer }>>;
  private readonly blocksStmt;
  private readonly getOverview;
  private readonly putOverviewStmt;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS trace_overviews (
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  version TEXT NOT NULL,
  gzip BLOB NOT NULL,
  PRIMARY KEY (sha256, version)
)`);
    this.getOverview = db.prepare<[string, string], { gzip: Buffer }>('SELECT gzip FROM trace_overviews WHERE sha256 = ? AND version = ?');
    this.putOverviewStmt = db.prepare('INSERT OR REPLACE INTO trace_overviews (sha256, version, gzip) VALUES (?, ?, ?)');
    this.hasStmt = db.prepare<[string, number], { one: number }>('SELECT 1 AS one FROM trace_reductions WHERE sha256 = ? AND version = ?');
    this.putReduction = db.prepare('INSERT OR REPLACE INTO trace_reductions (sha256, version, summary_gzip, ops_gzip, strings_gzip) VALUES (?, ?, ?, ?, ?)');
    this.putBlock = db.prepare('INSERT OR REPLACE INTO trace_blocks (sha256, track, block, start_us, end_us, gzip) VALUES (?, ?, ?, ?, ?, ?)');
    const part = (p: TracePart) => db.prepare<[string, number], { gzip: Buffer }>(`SELECT ${TRACE_PART_COLUMN[p]} AS gzip FROM trace_reductions WHERE sha256 = ? AND version = ?`);
    this.partStmts = { summary: part('summary'), ops: part('ops'), strings: part('strings') };
    this.blocksStmt = db.prepare<[string, number, number, number], { gzip: Buffer }>(
      'SELECT gzip FROM trace_blocks WHERE sha256 = ? AND track = ? AND start_us <= ? AND end_us >= ? ORDER BY block',
    );
  }

  /** Whether a reduction of this content is stored in the current version. */
  has(sha256: string): boolean {
    return this.hasStmt.get(sha256, TRACE_FORM_VERSION) !== undefined;
  }

  /** Stores (or replaces) the reduction of a stored blob, in one transaction (nested in the caller's when there is one). */
  put(sha256: string, t: StoredTrace): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM trace_blocks WHERE sha256 = ?').run(sha256);
      this.putReduction.run(sha256, TRACE_FORM_VERSION, t.summary, t.ops, t.strings);
      for (const b of t.blocks) this.putBlock.run(sha256, b.track, b.block, b.startUs, b.endUs, b.gzip);
      this.putOverview(sha256, t.overview);
    })();
  }

  /** The stored overview of a reduction (gzipped columns), if there is one in the current version. */
  overview(sha256: string): Buffer | undefined {
    return this.getOverview.get(sha256, OVERVIEW_VERSION)?.gzip;
  }

  /** Stores (or replaces) the overview of a stored reduction. */
  putOverview(sha256: string, gzip: Uint8Array): void {
    this.putOverviewStmt.run(sha256, OVERVIEW_VERSION, gzip);
  }

  /** One part of a stored reduction, gzipped JSON. */
  part(sha256: string, part: TracePart): Buffer | undefined {
    return this.partStmts[part].get(sha256, TRACE_FORM_VERSION)?.gzip;
  }

  /** The gzipped blocks of a track whose events may overlap [fromUs, toUs], in order. */
  blocks(sha256: string, track: number, fromUs: number, toUs: number): Buffer[] {
    return this.blocksStmt.all(sha256, track, toUs, fromUs).map((r) => r.gzip);
  }
}
