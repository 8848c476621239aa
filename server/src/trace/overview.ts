import type Database from 'better-sqlite3';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { decodeBlock, encodeWindowColumns, eventWindow, WINDOW_COLUMNS_VERSION, type TraceSummary } from '@seam/shared/trace';
import { TRACE_FORM_VERSION } from './stored-form';
import type { TraceStore } from './store';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Events an overview keeps per track: about two per pixel of a wide timeline, as many as the view's windows ask for. */
export const OVERVIEW_EVENTS = 4096;
/** Changes when what an overview holds changes: one stored in another is computed again. */
const OVERVIEW_VERSION = `${TRACE_FORM_VERSION}.${WINDOW_COLUMNS_VERSION}.${OVERVIEW_EVENTS}`;

/**
 * Overviews of stored traces: the whole trace's window of each track at {@link OVERVIEW_EVENTS}
 * (past it, the longest event of each equal time bucket), in columns (`encodeWindowColumns`),
 * gzipped; what a timeline draws first, in one small answer. Computed from the stored blocks on the
 * first request for a trace, stored (`trace_overviews`, keyed by content and `OVERVIEW_VERSION`) and
 * kept, so later requests, after a restart too, read one row. Concurrent first requests share one
 * computation.
 */
export class TraceOverviews {
  private readonly getStmt;
  private readonly putStmt;
  private readonly computing = new Map<string, Promise<Buffer>>();

  constructor(
    db: Database.Database,
    private readonly traces: TraceStore,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS trace_overviews (
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  version TEXT NOT NULL,
  gzip BLOB NOT NULL,
  PRIMARY KEY (sha256, version)
)`);
    this.getStmt = db.prepare<[string, string], { gzip: Buffer }>('SELECT gzip FROM trace_overviews WHERE sha256 = ? AND version = ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO trace_overviews (sha256, version, gzip) VALUES (?, ?, ?)');
  }

  /** The gzipped overview of the stored reduction `sha256` (which must exist), computing and storing it the first time. */
  async get(sha256: string): Promise<Buffer> {
    const stored = this.getStmt.get(sha256, OVERVIEW_VERSION)?.gzip;
    if (stored) return stored;
    let pending = this.computing.get(sha256);
    if (!pending) {
      pending = this.compute(sha256).finally(() => this.computing.delete(sha256));
      this.computing.set(sha256, pending);
    }
    return pending;
  }

  /** The ETag of an overview: its trace's content and the version of what it holds. */
  tag(sha256: string): string {
    return `${sha256}.trace-overview.${OVERVIEW_VERSION}`;
  }

  private async compute(sha256: string): Promise<Buffer> {
    const json = async <T>(gz: Buffer | undefined): Promise<T> => JSON.parse((await gunzipAsync(gz!)).toString('utf8')) as T;
    const summary = await json<TraceSummary>(this.traces.part(sha256, 'summary'));
    const strings = await json<string[]>(this.traces.part(sha256, 'strings'));
    const windows = [];
    // One track at a time: its blocks are all the memory this holds at once.
    for (const t of summary.tracks) {
      const blocks = await Promise.all(this.traces.blocks(sha256, t.id, summary.startUs, summary.endUs).map(async (gz) => decodeBlock(await gunzipAsync(gz))));
      windows.push(eventWindow(t.id, blocks, strings, summary.startUs, summary.endUs, OVERVIEW_EVENTS));
    }
    const gz = await gzipAsync(encodeWindowColumns(summary.startUs, summary.endUs, windows));
    this.putStmt.run(sha256, OVERVIEW_VERSION, gz);
    return gz;
  }
}
