import { TraceFormatError } from './errors';
import type { TraceEvent } from './types';
import type { EventWindow } from './window';

/** One track's events of a window in columns (sorted by start), their strings as ids into the window's table; -1 where an event has no op or module. */
export interface TrackColumns {
  readonly track: number;
  /** How many events overlap the window; more than the columns hold when `downsampled`. */
  readonly total: number;
  readonly downsampled: boolean;
  readonly start: Float64Array;
  readonly dur: Float64Array;
  readonly name: Int32Array;
  readonly op: Int32Array;
  readonly module: Int32Array;
}

/** Windows of tracks over one time range, in columns: what `…/trace/events?format=columns` and `…/trace/overview` answer, decoded. */
export interface WindowColumns {
  readonly fromUs: number;
  readonly toUs: number;
  /** The names, ops and modules the columns' ids point at. */
  readonly strings: readonly string[];
  readonly tracks: readonly TrackColumns[];
}

/** Format of the bytes; bytes of another version are not read. */
export const WINDOW_COLUMNS_VERSION = 1;
/** Version, track count, from, to, string-table bytes, reserved. */
const HEAD_BYTES = 32;
/** Per track: id, event count, total, downsampled. */
const TRACK_HEAD_BYTES = 16;
/** Bytes per event: two doubles and three 32-bit ids. */
const EVENT_BYTES = 8 + 8 + 4 + 4 + 4;
/** Bytes of a window past which it is not read: more than twenty thousand events on each of ten thousand tracks. */
const MAX_WINDOW_BYTES = 512 * 1024 * 1024;

const pad8 = (n: number): number => Math.ceil(n / 8) * 8;
/** Whether this machine stores numbers little-endian, as the bytes do. */
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** `strings` as a JSON array in ASCII (every other character escaped, `\u00e9`), one byte a character. */
function asciiJson(strings: readonly string[]): Uint8Array {
  const text = JSON.stringify(strings).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** The text of ASCII bytes; undefined when one is not ASCII. */
function asciiText(bytes: Uint8Array): string | undefined {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    if (chunk.some((b) => b > 0x7e)) return undefined;
    text += String.fromCharCode(...chunk);
  }
  return text;
}

/**
 * The bytes of `windows` (one per track, as `eventWindow` gives them) over [fromUs, toUs], little-endian:
 * a head (version, track count, from, to, string-table bytes), the string table as a JSON array in ASCII,
 * then per track a head (id, events, total, downsampled) and its columns (start, dur as doubles;
 * name, op, module as 32-bit ids), each part padded to 8 bytes. A third or less of the JSON of the
 * same events, and read without a parser.
 */
export function encodeWindowColumns(fromUs: number, toUs: number, windows: readonly EventWindow[]): Uint8Array {
  const ids = new Map<string, number>();
  const id = (s: string | undefined): number => {
    if (s === undefined) return -1;
    let i = ids.get(s);
    if (i === undefined) ids.set(s, (i = ids.size));
    return i;
  };
  const named = windows.map((w) => w.events.map((e: TraceEvent) => [id(e.name), id(e.op), id(e.module)] as const));
  const table = asciiJson([...ids.keys()]);
  let size = HEAD_BYTES + pad8(table.byteLength);
  for (const w of windows) size += TRACK_HEAD_BYTES + pad8(w.events.length * EVENT_BYTES);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, WINDOW_COLUMNS_VERSION, true);
  view.setUint32(4, windows.length, true);
  view.setFloat64(8, fromUs, true);
  view.setFloat64(16, toUs, true);
  view.setUint32(24, table.byteLength, true);
  out.set(table, HEAD_BYTES);
  let p = HEAD_BYTES + pad8(table.byteLength);
  windows.forEach((w, k) => {
    const n = w.events.length;
    view.setUint32(p, w.track, true);
    view.setUint32(p + 4, n, true);
    view.setUint32(p + 8, w.total, true);
    view.setUint32(p + 12, w.downsampled ? 1 : 0, true);
    p += TRACK_HEAD_BYTES;
    for (const e of w.events) view.setFloat64((p += 8) - 8, e.startUs, true);
    for (const e of w.events) view.setFloat64((p += 8) - 8, e.durUs, true);
    for (let col = 0; col < 3; col++) for (const ns of named[k]!) view.setInt32((p += 4) - 4, ns[col]!, true);
    p = pad8(p);
  });
  return out;
}

/** The windows encoded by {@link encodeWindowColumns} (their columns may be views of `bytes`, which must then stay as they are); throws `TraceFormatError` on bytes that are not such windows, cut short, or with an id outside the string table. */
export function decodeWindowColumns(bytes: Uint8Array): WindowColumns {
  const fail = (why: string): never => {
    throw new TraceFormatError(`not a window of trace events: ${why}`);
  };
  if (bytes.byteLength < HEAD_BYTES) fail(`${bytes.byteLength} bytes is shorter than its head`);
  if (bytes.byteLength > MAX_WINDOW_BYTES) fail(`${bytes.byteLength} bytes is more than ${MAX_WINDOW_BYTES}`);
  // Columns are views of the bytes where they can be: a double must start at a multiple of 8.
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const view = new DataView(aligned.buffer, aligned.byteOffset, aligned.byteLength);
  const version = view.getUint32(0, true);
  if (version !== WINDOW_COLUMNS_VERSION) fail(`version ${version}, not ${WINDOW_COLUMNS_VERSION}`);
  const trackCount = view.getUint32(4, true);
  const fromUs = view.getFloat64(8, true);
  const toUs = view.getFloat64(16, true);
  const tableBytes = view.getUint32(24, true);
  if (!Number.isFinite(fromUs) || !Number.isFinite(toUs) || fromUs > toUs) fail('its time range is not a range');
  let p = HEAD_BYTES + pad8(tableBytes);
  if (p > bytes.byteLength) fail('the string table runs past the end');
  const text = asciiText(bytes.subarray(HEAD_BYTES, HEAD_BYTES + tableBytes));
  if (text === undefined) fail('the string table is not ASCII');
  let strings: unknown;
  try {
    strings = JSON.parse(text!);
  } catch {
    return fail('the string table is not a JSON array');
  }
  if (!Array.isArray(strings) || !strings.every((s) => typeof s === 'string')) return fail('the string table is not an array of strings');
  const table = strings as string[];
  const tracks: TrackColumns[] = [];
  for (let k = 0; k < trackCount; k++) {
    if (p + TRACK_HEAD_BYTES > bytes.byteLength) fail(`track ${k} of ${trackCount} is cut short`);
    const track = view.getUint32(p, true);
    const n = view.getUint32(p + 4, true);
    const total = view.getUint32(p + 8, true);
    const downsampled = view.getUint32(p + 12, true) === 1;
    p += TRACK_HEAD_BYTES;
    if (p + n * EVENT_BYTES > bytes.byteLength) fail(`track ${k} of ${trackCount} is cut short`);
    if (total < n) fail(`track ${k} holds ${n} events of ${total}`);
    const col = <T extends Float64Array | Int32Array>(make: new (buffer: ArrayBufferLike, offset: number, length: number) => T, width: number, read: (at: number) => number): T => {
      // On a little-endian machine (all of them, nearly) a column is a view of the bytes; else it is read value by value.
      const out = LITTLE ? new make(aligned.buffer, aligned.byteOffset + p, n) : new make(new ArrayBuffer(n * width), 0, n);
      if (!LITTLE) for (let i = 0; i < n; i++) out[i] = read(p + i * width);
      p += n * width;
      return out;
    };
    const start = col(Float64Array, 8, (at) => view.getFloat64(at, true));
    const dur = col(Float64Array, 8, (at) => view.getFloat64(at, true));
    const name = col(Int32Array, 4, (at) => view.getInt32(at, true));
    const op = col(Int32Array, 4, (at) => view.getInt32(at, true));
    const module = col(Int32Array, 4, (at) => view.getInt32(at, true));
    for (const [ids, least] of [[name, 0], [op, -1], [module, -1]] as const) {
      for (let i = 0; i < n; i++) {
        const v = ids[i]!;
        if (v >= table.length || v < least) fail(`track ${k} names string ${v} of ${table.length}`);
      }
    }
    p = pad8(p);
    tracks.push({ track, total, downsampled, start, dur, name, op, module });
  }
  if (p !== bytes.byteLength) fail(`${bytes.byteLength - p} bytes past its last track`);
  return { fromUs, toUs, strings: table, tracks };
}
