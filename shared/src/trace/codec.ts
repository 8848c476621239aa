import { TraceFormatError } from './errors';

/** One stored block of a track's events, in columns (sorted by start). */
export interface EventBlock {
  readonly start: Float64Array;
  readonly dur: Float64Array;
  readonly name: Int32Array;
  readonly op: Int32Array;
  readonly module: Int32Array;
}

/** Bytes per event in a block: two doubles and three 32-bit ids. */
const EVENT_BYTES = 8 + 8 + 4 + 4 + 4;
/** Format of the block bytes; a block of another version is not read. */
export const BLOCK_VERSION = 1;
/** Whether typed arrays are little-endian here (as the block bytes are): then columns are copied whole, not value by value. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The bytes of events `from`..`to` (exclusive) of the columns: a header (version, count) and the
 * columns one after the other, little-endian (each column starts on a multiple of its width).
 */
export function encodeBlock(c: EventBlock, from: number, to: number): Uint8Array {
  const n = to - from;
  const out = new Uint8Array(8 + n * EVENT_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, BLOCK_VERSION, true);
  view.setUint32(4, n, true);
  let p = 8;
  for (const col of [c.start, c.dur] as const) {
    if (LITTLE_ENDIAN) new Float64Array(out.buffer, p, n).set(col.subarray(from, to));
    else for (let i = from; i < to; i++) view.setFloat64(p + (i - from) * 8, col[i]!, true);
    p += n * 8;
  }
  for (const col of [c.name, c.op, c.module] as const) {
    if (LITTLE_ENDIAN) new Int32Array(out.buffer, p, n).set(col.subarray(from, to));
    else for (let i = from; i < to; i++) view.setInt32(p + (i - from) * 4, col[i]!, true);
    p += n * 4;
  }
  return out;
}

/** The columns of a block encoded by `encodeBlock`; throws `TraceFormatError` on bytes that are not one. */
export function decodeBlock(bytes: Uint8Array): EventBlock {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== BLOCK_VERSION) throw new TraceFormatError('not a stored event block of this version');
  const n = view.getUint32(4, true);
  if (bytes.byteLength !== 8 + n * EVENT_BYTES) throw new TraceFormatError(`a stored event block of ${n} events has ${bytes.byteLength} bytes`);
  const start = new Float64Array(n);
  const dur = new Float64Array(n);
  const name = new Int32Array(n);
  const op = new Int32Array(n);
  const module = new Int32Array(n);
  let p = 8;
  for (const col of [start, dur]) {
    // The bytes may start anywhere in their buffer: they are copied as bytes into the column's own.
    if (LITTLE_ENDIAN) new Uint8Array(col.buffer).set(bytes.subarray(p, p + n * 8));
    else for (let i = 0; i < n; i++) col[i] = view.getFloat64(p + i * 8, true);
    p += n * 8;
  }
  for (const col of [name, op, module]) {
    if (LITTLE_ENDIAN) new Uint8Array(col.buffer).set(bytes.subarray(p, p + n * 4));
    else for (let i = 0; i < n; i++) col[i] = view.getInt32(p + i * 4, true);
    p += n * 4;
  }
  return { start, dur, name, op, module };
}
