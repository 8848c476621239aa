import { describe, expect, it } from 'vitest';
import { decodeWindowColumns, encodeWindowColumns, eventWindow, TraceFormatError, WINDOW_COLUMNS_VERSION, type EventBlock, type EventWindow, type TraceEvent } from './index';

const ev = (startUs: number, durUs: number, name: string, op?: string, module?: string): TraceEvent => ({
  track: 0, startUs, durUs, name, ...(op !== undefined ? { op } : {}), ...(module !== undefined ? { module } : {}),
});
const win = (track: number, events: TraceEvent[], total = events.length): EventWindow => ({
  track, fromUs: 0, toUs: 100, total, downsampled: total > events.length, events: events.map((e) => ({ ...e, track })),
});
/** The events of decoded columns, strings resolved, per track. */
const eventsOf = (bytes: Uint8Array) => {
  const w = decodeWindowColumns(bytes);
  return w.tracks.map((t) => ({
    track: t.track, total: t.total, downsampled: t.downsampled,
    events: [...t.start].map((s, i) => ({
      track: t.track, startUs: s, durUs: t.dur[i]!, name: w.strings[t.name[i]!]!,
      ...(t.op[i]! >= 0 ? { op: w.strings[t.op[i]!] } : {}), ...(t.module[i]! >= 0 ? { module: w.strings[t.module[i]!] } : {}),
    })),
  }));
};

const windows = [
  win(3, [ev(0.125, 2.5, 'fusion.1', 'fusion.1', 'jit_f'), ev(4, 0, 'instant'), ev(1e15 + 0.5, 1e-9, 'tiny "quoted" \\ name', 'dot', 'jit_f')], 9),
  win(7, []),
  win(11, [ev(10, 1, 'naïve · attention ✓ 𝛼', 'op\u0000nul\u007f', 'módulo')]),
];
const bytes = encodeWindowColumns(0, 100, windows);

describe('windows of trace events in columns', () => {
  it('reads back every event, track, total and string as written, doubles exact', () => {
    const back = decodeWindowColumns(bytes);
    expect([back.fromUs, back.toUs]).toEqual([0, 100]);
    expect(eventsOf(bytes)).toEqual(windows.map((w) => ({ track: w.track, total: w.total, downsampled: w.downsampled, events: w.events })));
    // One table entry per distinct string, however often it is named.
    expect(back.strings.filter((s) => s === 'jit_f')).toHaveLength(1);
    expect(decodeWindowColumns(encodeWindowColumns(5, 5, []))).toEqual({ fromUs: 5, toUs: 5, strings: [], tracks: [] });
    // Bytes that do not start at a multiple of 8 (a slice of a larger buffer) read the same.
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    expect(decodeWindowColumns(shifted.subarray(3))).toEqual(back);
  });

  it('takes under a third of the bytes of the JSON of the same windows', () => {
    const many = win(0, Array.from({ length: 5000 }, (_, i) => ev(1000 + i * 1.5, 1.25, `fusion.${i % 40}`, `fusion.${i % 40}`, 'jit_train_step')));
    expect(encodeWindowColumns(0, 1e4, [many]).byteLength * 3).toBeLessThan(JSON.stringify({ fromUs: 0, toUs: 1e4, windows: [many] }).length);
  });

  it('refuses bytes cut anywhere, with trailing bytes, or of another version, by name', () => {
    for (let cut = 0; cut < bytes.byteLength; cut += 1) expect(() => decodeWindowColumns(bytes.subarray(0, cut)), `cut at ${cut}`).toThrow(TraceFormatError);
    expect(() => decodeWindowColumns(new Uint8Array([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/past its last track/);
    const other = bytes.slice();
    new DataView(other.buffer).setUint32(0, WINDOW_COLUMNS_VERSION + 1, true);
    expect(() => decodeWindowColumns(other)).toThrow(/version/);
  });

  it('refuses hostile heads and ids: a huge track count or event count, an id past the table, a bad range or table', () => {
    const at = (edit: (v: DataView, b: Uint8Array) => void) => {
      const b = bytes.slice();
      edit(new DataView(b.buffer), b);
      return () => decodeWindowColumns(b);
    };
    const tableEnd = 32 + Math.ceil(new DataView(bytes.buffer).getUint32(24, true) / 8) * 8;
    expect(at((v) => v.setUint32(4, 0xffffffff, true))).toThrow(TraceFormatError);
    expect(at((v) => v.setUint32(tableEnd + 4, 0xffffffff, true))).toThrow(/cut short/);
    expect(at((v) => v.setUint32(tableEnd + 8, 1, true))).toThrow(/holds 3 events of 1/);
    // The first track's first name id, then its first op id.
    expect(at((v) => v.setInt32(tableEnd + 16 + 3 * 16, 99, true))).toThrow(/string 99/);
    expect(at((v) => v.setInt32(tableEnd + 16 + 3 * 16 + 3 * 4, -2, true))).toThrow(/string -2/);
    expect(at((v) => v.setInt32(tableEnd + 16 + 3 * 16, -1, true))).toThrow(/string -1/);
    expect(at((v) => v.setFloat64(8, 200, true))).toThrow(/not a range/);
    expect(at((v) => v.setFloat64(16, Number.NaN, true))).toThrow(/not a range/);
    expect(at((v) => v.setUint32(24, 0xfffffff0, true))).toThrow(/runs past the end/);
    expect(at((_, b) => (b[32] = 0xc3))).toThrow(/not ASCII/);
    expect(at((_, b) => (b[32] = 0x7b))).toThrow(/not a JSON array/);
    const numbers = encodeWindowColumns(0, 1, []);
    const table = new TextEncoder().encode('[1]  ');
    const forged = new Uint8Array(40);
    forged.set(numbers.subarray(0, 32));
    new DataView(forged.buffer).setUint32(24, table.byteLength, true);
    forged.set(table, 32);
    expect(() => decodeWindowColumns(forged)).toThrow(/not an array of strings/);
  });
});

describe('a window of a track’s stored blocks', () => {
  const block = (starts: number[], durs: number[]): EventBlock => ({
    start: Float64Array.from(starts), dur: Float64Array.from(durs), name: Int32Array.from(starts, (_, i) => i % 3), op: Int32Array.from(starts, () => -1), module: Int32Array.from(starts, () => -1),
  });
  const strings = ['a', 'b', 'c'];
  // Two blocks, sorted by start; a long event from before the window reaches into it.
  const blocks = [block([0, 10, 11, 12, 30], [15, 1, 3, 3, 1]), block([40, 41, 55, 90, 150], [1, 2, 1, 30, 1])];

  it('keeps every event overlapping the window, in order, up to the limit', () => {
    const w = eventWindow(4, blocks, strings, 12, 100, 20);
    expect(w.events.map((e) => e.startUs)).toEqual([0, 11, 12, 30, 40, 41, 55, 90]);
    expect(w).toMatchObject({ track: 4, total: 8, downsampled: false });
    expect(w.events[0]).toEqual({ track: 4, startUs: 0, durUs: 15, name: 'a' });
  });

  it('past the limit, keeps the longest event starting in each equal bucket (the first of equals), in bucket order', () => {
    // Buckets of 22 µs from 12: [12,34) [34,56) [56,78) [78,100]; the event from 0 counts in the first.
    const w = eventWindow(4, blocks, strings, 12, 100, 4);
    expect(w.events.map((e) => [e.startUs, e.durUs])).toEqual([[0, 15], [41, 2], [90, 30]]);
    expect(w).toMatchObject({ total: 8, downsampled: true });
    const ties = eventWindow(0, [block([0, 1, 2, 3], [2, 2, 2, 2])], strings, 0, 4, 2);
    expect(ties.events.map((e) => e.startUs)).toEqual([0, 2]);
  });
});
