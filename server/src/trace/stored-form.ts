import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import { encodeBlock, encodeWindowColumns, eventWindow, WINDOW_COLUMNS_VERSION, type EventBlock, type ReducedTrace } from '@seam/shared/trace';

/** Events per stored block: a window read decompresses only the blocks it overlaps (about 450 KB each). */
const BLOCK_EVENTS = 16_384;
/** Version of the stored form; a reduction stored in another is not served. */
export const TRACE_FORM_VERSION = 1;
/** Events an overview keeps per track: about two per pixel of a wide timeline, as many as the view's windows ask for. */
export const OVERVIEW_EVENTS = 4096;
/** Changes when what an overview holds changes: one stored in another is computed again. */
export const OVERVIEW_VERSION = `${TRACE_FORM_VERSION}.${WINDOW_COLUMNS_VERSION}.${OVERVIEW_EVENTS}`;

/** One block of one track's events, gzipped (at the fastest level: blocks are written at ingest, beside the upload), with the span it covers. */
export interface StoredBlock {
  readonly track: number;
  readonly block: number;
  /** Start of its first event, and latest end of any of its events (µs). */
  readonly startUs: number;
  readonly endUs: number;
  readonly gzip: Uint8Array;
}

/** A reduced trace as stored: summary, per-op aggregates and string table as gzipped JSON, events in gzipped blocks. */
export interface StoredTrace {
  readonly summary: Uint8Array;
  readonly ops: Uint8Array;
  readonly strings: Uint8Array;
  readonly blocks: readonly StoredBlock[];
  /** The whole trace's window of each track at `OVERVIEW_EVENTS`, in columns, gzipped: what a timeline draws first. */
  readonly overview: Uint8Array;
}

const gzipAsync = promisify(gzip);
/** Blocks compressed at once: Node's thread pool runs four jobs. */
const PARALLEL_BLOCKS = 4;
/** Gzipped on the thread pool, so that the blocks are compressed on every core at once; copied into a buffer of their own (to be transferred). */
const gz = async (bytes: Uint8Array | string, level: number = constants.Z_DEFAULT_COMPRESSION): Promise<Uint8Array> => new Uint8Array(await gzipAsync(bytes, { level }));

/** The stored form of a reduced trace (run where the trace was reduced: off the event loop). */
export async function storedForm(t: ReducedTrace): Promise<StoredTrace> {
  const spans: Omit<StoredBlock, 'gzip'>[] = [];
  const ranges: [number, number][] = [];
  const { start, dur, track } = t.columns;
  let i = 0;
  while (i < start.length) {
    const tr = track[i]!;
    let block = 0;
    while (i < start.length && track[i] === tr) {
      let j = i;
      let endUs = Number.NEGATIVE_INFINITY;
      while (j < start.length && track[j] === tr && j - i < BLOCK_EVENTS) {
        endUs = Math.max(endUs, start[j]! + dur[j]!);
        j++;
      }
      spans.push({ track: tr, block: block++, startUs: start[i]!, endUs });
      ranges.push([i, j]);
      i = j;
    }
  }
  const overview = overviewColumns(t, spans, ranges);
  const blocks = new Array<Uint8Array>(ranges.length);
  let next = 0;
  // A few blocks at a time (as many as the thread pool runs at once), each encoded just before it is compressed.
  const compressor = async (): Promise<void> => {
    for (let k = next++; k < ranges.length; k = next++) blocks[k] = await gz(encodeBlock(t.columns, ranges[k]![0], ranges[k]![1]), constants.Z_BEST_SPEED);
  };
  const [[summary, ops, strings, overviewGzip]] = await Promise.all([
    Promise.all([gz(JSON.stringify(t.summary)), gz(JSON.stringify(t.ops)), gz(JSON.stringify(t.strings)), gz(overview)]),
    Promise.all(Array.from({ length: PARALLEL_BLOCKS }, compressor)),
  ]);
  return { summary, ops, strings, blocks: spans.map((s, k) => ({ ...s, gzip: blocks[k]! })), overview: overviewGzip };
}

/**
 * The overview of a reduced trace (see `StoredTrace.overview`), from its columns while they are in
 * memory: each track of the summary, in its order, as one block viewed over its events (no copy).
 */
function overviewColumns(t: ReducedTrace, spans: readonly Omit<StoredBlock, 'gzip'>[], ranges: readonly [number, number][]): Uint8Array {
  const of = new Map<number, [number, number]>();
  spans.forEach((s, k) => {
    const r = ranges[k]!;
    const cur = of.get(s.track);
    of.set(s.track, cur ? [cur[0], r[1]] : [r[0], r[1]]);
  });
  const c = t.columns;
  const { startUs, endUs } = t.summary;
  const windows = t.summary.tracks.map((track) => {
    const r = of.get(track.id);
    const block: EventBlock[] = r
      ? [{ start: c.start.subarray(r[0], r[1]), dur: c.dur.subarray(r[0], r[1]), name: c.name.subarray(r[0], r[1]), op: c.op.subarray(r[0], r[1]), module: c.module.subarray(r[0], r[1]) }]
      : [];
    return eventWindow(track.id, block, t.strings, startUs, endUs, OVERVIEW_EVENTS);
  });
  return encodeWindowColumns(startUs, endUs, windows);
}
