import { constants, gzipSync } from 'node:zlib';
import { encodeBlock, type ReducedTrace } from '@seam/shared/trace';

/** Events per stored block: a window read decompresses only the blocks it overlaps (about 450 KB each). */
const BLOCK_EVENTS = 16_384;
/** Version of the stored form; a reduction stored in another is not served. */
export const TRACE_FORM_VERSION = 1;

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
}

const gz = (value: unknown): Uint8Array => new Uint8Array(gzipSync(JSON.stringify(value)));

/** The stored form of a reduced trace (run where the trace was reduced: off the event loop). */
export function storedForm(t: ReducedTrace): StoredTrace {
  const blocks: StoredBlock[] = [];
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
      blocks.push({ track: tr, block: block++, startUs: start[i]!, endUs, gzip: new Uint8Array(gzipSync(encodeBlock(t.columns, i, j), { level: constants.Z_BEST_SPEED })) });
      i = j;
    }
  }
  return { summary: gz(t.summary), ops: gz(t.ops), strings: gz(t.strings), blocks };
}
