import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { decodeBlock, encodeWindowColumns, eventWindow, type TraceSummary } from '@seam/shared/trace';
import { OVERVIEW_EVENTS, OVERVIEW_VERSION } from './stored-form';
import type { TraceBlocks } from '../store/shared-store';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/**
 * Overviews of stored traces: the whole trace's window of each track at {@link OVERVIEW_EVENTS}
 * (past it, the longest event of each equal time bucket), in columns (`encodeWindowColumns`),
 * gzipped; what a timeline draws first, in one small answer. The reduction writes it beside the
 * blocks (`storedForm`); for a reduction stored before overviews were (or in another
 * `OVERVIEW_VERSION`) it is computed here from the stored blocks on the first request, stored and
 * kept, so later requests, after a restart too, read one row. Concurrent first requests share one
 * computation.
 */
export class TraceOverviews {
  private readonly computing = new Map<string, Promise<Buffer>>();

  constructor(private readonly traces: TraceBlocks) {}

  /** The gzipped overview of the stored reduction `sha256` (which must exist), computing and storing it the first time. */
  async get(sha256: string): Promise<Buffer> {
    const stored = await this.traces.overview(sha256);
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
    const summary = await json<TraceSummary>(await this.traces.part(sha256, 'summary'));
    const strings = await json<string[]>(await this.traces.part(sha256, 'strings'));
    const windows = [];
    // One track at a time: its blocks are all the memory this holds at once.
    for (const t of summary.tracks) {
      const blocks = await Promise.all((await this.traces.blocks(sha256, t.id, summary.startUs, summary.endUs)).map(async (gz) => decodeBlock(await gunzipAsync(gz))));
      windows.push(eventWindow(t.id, blocks, strings, summary.startUs, summary.endUs, OVERVIEW_EVENTS));
    }
    const gz = await gzipAsync(encodeWindowColumns(summary.startUs, summary.endUs, windows));
    await this.traces.putOverview(sha256, gz);
    return gz;
  }
}
