import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { XEventSchema, XLineSchema, XPlaneSchema, XSpaceSchema } from './gen/xplane_pb';
import {
  ChromeTraceReducer, DEFAULT_TRACE_LIMITS, TraceFormatError, TraceTooLarge, XSpaceReducer, decodeBlock, encodeBlock, eventWindow, sniffTraceFormat,
  type ReducedTrace, type TraceLimits,
} from './index';

const dir = new URL('../../../test/fixtures/trace/', import.meta.url);
const json = gunzipSync(readFileSync(new URL('mlp.trace.json.gz', dir))).toString('utf8');
const xplane = new Uint8Array(readFileSync(new URL('mlp.xplane.pb', dir)));
/** The harness's own `op_table` (runners/python/seam_capture/trace.py) of the same JSON. */
const python = JSON.parse(readFileSync(new URL('mlp.op_table.json', dir), 'utf8')) as { ops: { name: string; module: string; count: number; totalUs: number; meanUs: number }[] };

function reduceJson(text: string, chunk = 4096, limits: TraceLimits = DEFAULT_TRACE_LIMITS): ReducedTrace {
  const r = new ChromeTraceReducer(limits);
  for (let i = 0; i < text.length; i += chunk) r.write(text.slice(i, i + chunk));
  return r.end();
}

function reduceXSpace(bytes: Uint8Array, chunk = 4096, limits: TraceLimits = DEFAULT_TRACE_LIMITS): ReducedTrace {
  const r = new XSpaceReducer(limits);
  for (let i = 0; i < bytes.length; i += chunk) r.write(bytes.subarray(i, i + chunk));
  return r.end();
}

const events = (list: unknown[]): string => JSON.stringify({ traceEvents: list });

describe('a real trace written by jax.profiler on the CPU', () => {
  const fromJson = reduceJson(json);
  const fromXSpace = reduceXSpace(xplane);

  it('gives the same ops from its Perfetto JSON and its xplane.pb, agreeing with the harness op_table within 1%', () => {
    expect(fromJson.ops.length).toBeGreaterThan(0);
    expect(fromXSpace.ops.map((o) => [o.module, o.op, o.count])).toEqual(fromJson.ops.map((o) => [o.module, o.op, o.count]));
    for (const [i, o] of fromXSpace.ops.entries()) expect(o.totalUs).toBeCloseTo(fromJson.ops[i]!.totalUs, 2);
    expect(fromJson.ops.map((o) => [o.module, o.op, o.count]).sort()).toEqual(python.ops.map((o) => [o.module, o.name, o.count]).sort());
    for (const row of python.ops) {
      const o = fromJson.ops.find((x) => x.op === row.name && x.module === row.module)!;
      expect(Math.abs(o.totalUs - row.totalUs)).toBeLessThanOrEqual(row.totalUs * 0.01);
      expect(Math.abs(o.meanUs - row.meanUs)).toBeLessThanOrEqual(row.meanUs * 0.01);
      expect(o.minUs).toBeLessThanOrEqual(o.meanUs);
      expect(o.maxUs).toBeGreaterThanOrEqual(o.meanUs);
    }
  });

  it('finds the host threads, the steps and the same events in both formats', () => {
    for (const t of [fromJson, fromXSpace]) {
      expect(t.summary.tracks.map((k) => [k.process, k.name, k.kind])).toEqual([
        ['/host:CPU', 'python', 'host'],
        ['/host:CPU', expect.stringMatching(/^tf_XLAPjRtCpuClient/), 'host'],
      ]);
      expect(t.summary.steps.map((s) => [s.step, s.name])).toEqual([[0, 'train'], [1, 'train'], [2, 'train']]);
      expect(t.columns.start.length).toBe(t.summary.events);
    }
    expect(fromXSpace.summary.events).toBe(fromJson.summary.events);
    expect(fromXSpace.summary.startUs).toBeCloseTo(fromJson.summary.startUs, 3);
    expect(fromXSpace.summary.endUs).toBeCloseTo(fromJson.summary.endUs, 3);
  });

  it('reduces the same whatever the chunks', () => {
    const whole = reduceJson(json, json.length);
    for (const size of [1, 7, 250, 65536]) {
      const t = reduceJson(json, size);
      expect(t.ops).toEqual(whole.ops);
      expect(t.summary).toEqual(whole.summary);
      expect(Array.from(t.columns.start)).toEqual(Array.from(whole.columns.start));
    }
    for (const size of [1, 13, 100_000]) expect(reduceXSpace(xplane, size).ops).toEqual(fromXSpace.ops);
  });

  it('reads a window of a track back from stored blocks, downsampled to the longest event per bucket', () => {
    const t = fromJson;
    const track = t.summary.tracks.findIndex((k) => k.name.startsWith('tf_XLA'));
    const idx = [...t.columns.track.keys()].filter((i) => t.columns.track[i] === track);
    const block = decodeBlock(encodeBlock(t.columns, idx[0]!, idx.at(-1)! + 1));
    const all = eventWindow(track, [block], t.strings, t.summary.startUs, t.summary.endUs, 1000);
    expect(all.total).toBe(idx.length);
    expect(all.downsampled).toBe(false);
    expect(all.events.filter((e) => e.op === 'ynn_fusion.1')).toHaveLength(3);
    const few = eventWindow(track, [block], t.strings, t.summary.startUs, t.summary.endUs, 3);
    expect(few.downsampled).toBe(true);
    expect(few.events.length).toBeLessThanOrEqual(3);
    const longest = Math.max(...all.events.map((e) => e.durUs));
    expect(few.events.map((e) => e.durUs)).toContain(longest);
    expect(() => decodeBlock(new Uint8Array([9, 0, 0, 0]))).toThrow(TraceFormatError);
  });
});

describe('Chrome JSON events', () => {
  it('pairs B/E per thread, keeps instants, names processes and threads, ignores counters; reads a bare array', () => {
    const list = [
      { ph: 'M', name: 'process_name', pid: 1, args: { name: '/device:GPU:0' } },
      { ph: 'M', name: 'thread_name', pid: 1, tid: 7, args: { name: 'Stream #7(Compute)' } },
      { ph: 'B', pid: 1, tid: 7, ts: 10, name: 'fusion', args: { hlo_op: 'fusion.3' } },
      { ph: 'E', pid: 1, tid: 7, ts: 14, args: { hlo_module: 'jit_f' } },
      { ph: 'i', pid: 1, tid: 8, ts: 12, name: 'mark' },
      { ph: 'C', pid: 1, ts: 12, name: 'mem', args: { bytes: 5 } },
      { ph: 'E', pid: 2, tid: 1, ts: 3 },
      { ph: 'B', pid: 2, tid: 1, ts: 5, name: 'never ended' },
    ];
    for (const text of [events(list), JSON.stringify(list)]) {
      const t = reduceJson(text, 5);
      expect(t.ops).toEqual([{ module: 'jit_f', op: 'fusion.3', count: 1, totalUs: 4, meanUs: 4, minUs: 4, maxUs: 4 }]);
      expect(t.summary.tracks.map((k) => [k.process, k.name, k.kind, k.events])).toEqual([
        ['/device:GPU:0', 'Stream #7(Compute)', 'stream', 1],
        ['/device:GPU:0', 'tid 8', 'device', 1],
        ['pid 2', 'tid 1', 'host', 0],
      ]);
      expect(t.summary).toMatchObject({ events: 2, ignored: 1, unpaired: 2, startUs: 10, endUs: 14 });
    }
  });

  it('skips other top-level values, however nested, and escaped strings', () => {
    const text = `{"displayTimeUnit":"ns","otherData":{"a":[1,{"b":"}]\\"{"}]},"n":-1.5e3,"traceEvents":[{"ph":"X","ts":1,"dur":2,"name":"a\\"}b","args":{"hlo_op":"x","hlo_module":"m"}}],"z":true}`;
    for (const chunk of [1, 3, text.length]) {
      const t = reduceJson(text, chunk);
      expect(t.strings[t.columns.name[0]!]).toBe('a"}b');
      expect(t.ops).toHaveLength(1);
    }
  });
});

describe('bad traces get a named error', () => {
  const formatErrors: [string, string, RegExp][] = [
    ['not JSON at all', 'hello', /not a JSON trace/],
    ['empty', '', /cut short/],
    ['truncated inside an event', json.slice(0, Math.floor(json.length / 2)), /cut short: it ends inside an event/],
    ['truncated after an event', '{"traceEvents":[{"ph":"X","ts":1,"dur":1}', /cut short/],
    ['traceEvents of the wrong type', '{"traceEvents":{"ph":"X"}}', /traceEvents must be an array/],
    ['an event that is not an object', '{"traceEvents":[1]}', /traceEvents\[0\] is not an object/],
    ['ts as a string', events([{ ph: 'X', ts: '12', dur: 1 }]), /traceEvents\[0\]\.ts must be a number, not a string/],
    ['dur as a string', events([{ ph: 'X', ts: 1 }, { ph: 'X', ts: 1, dur: '3' }]), /traceEvents\[1\]\.dur must be a number/],
    ['a negative duration', events([{ ph: 'X', ts: 1, dur: -3 }]), /dur must be a number not below 0/],
    ['args of the wrong type', events([{ ph: 'X', ts: 1, dur: 1, args: [1] }]), /args must be an object, not an array/],
    ['ph of the wrong type', events([{ ph: 1 }]), /ph must be a string/],
    ['pid of the wrong type', events([{ ph: 'X', ts: 1, pid: {} }]), /pid must be a number or a string/],
    ['an invalid event', '{"traceEvents":[{"ph":"X","ts":01}]}', /are not valid JSON/],
    ['mismatched brackets', '{"traceEvents":[{"a":[}]}', /mismatched/],
    ['text after the end', '{"traceEvents":[]} x', /text after the end/],
    ['an invalid top-level value', '{"x":nope,"traceEvents":[]}', /not valid JSON/],
  ];
  for (const [what, text, message] of formatErrors) {
    it(`${what}: TraceFormatError`, () => {
      expect(() => reduceJson(text, 3)).toThrow(message);
      expect(() => reduceJson(text)).toThrow(TraceFormatError);
    });
  }

  it('deep nesting, huge strings, too many events or tracks: TraceTooLarge', () => {
    const deep = `{"traceEvents":[{"args":${'['.repeat(100_000)}`;
    expect(() => reduceJson(deep)).toThrow(TraceTooLarge);
    expect(() => reduceJson(`{"meta":${'{"a":'.repeat(100)}1${'}'.repeat(100)},"traceEvents":[]}`)).toThrow(/nests deeper than 64/);
    const huge = events([{ ph: 'X', ts: 1, dur: 1, name: 'x'.repeat(2 * 1024 * 1024) }]);
    expect(() => reduceJson(huge)).toThrow(/longer than 1048576 characters/);
    expect(() => reduceJson(huge, huge.length)).toThrow(TraceTooLarge);
    const many = events(Array.from({ length: 11 }, (_, i) => ({ ph: 'X', ts: i, dur: 1 })));
    expect(() => reduceJson(many, 4096, { ...DEFAULT_TRACE_LIMITS, maxEvents: 10 })).toThrow(/more than 10 events/);
    const tracks = events(Array.from({ length: 5 }, (_, i) => ({ ph: 'X', ts: 1, dur: 1, tid: i })));
    expect(() => reduceJson(tracks, 4096, { ...DEFAULT_TRACE_LIMITS, maxTracks: 4 })).toThrow(/more than 4 tracks/);
    const strings = events(Array.from({ length: 50 }, (_, i) => ({ ph: 'X', ts: 1, dur: 1, name: `op number ${i}` })));
    expect(() => reduceJson(strings, 4096, { ...DEFAULT_TRACE_LIMITS, maxStringChars: 100 })).toThrow(/distinct strings pass 100/);
  });

  it('XSpace: truncated, garbage, no plane, an invalid plane, an oversized plane', () => {
    expect(() => reduceXSpace(xplane.subarray(0, xplane.length - 100))).toThrow(/XSpace is cut short/);
    expect(() => reduceXSpace(xplane.subarray(0, 3))).toThrow(TraceFormatError);
    expect(() => reduceXSpace(new TextEncoder().encode('hello, world'))).toThrow(/not an XSpace/);
    expect(() => reduceXSpace(new Uint8Array(0))).toThrow(/holds no plane/);
    // Field 1 (a plane) whose bytes are not an XPlane: a string field (2) with a length past its end.
    expect(() => reduceXSpace(new Uint8Array([0x0a, 0x03, 0x12, 0x7f, 0x00]))).toThrow(/plane 0 of the XSpace is not a valid XPlane/);
    expect(() => reduceXSpace(xplane, 4096, { ...DEFAULT_TRACE_LIMITS, maxPlaneBytes: 1000 })).toThrow(TraceTooLarge);
  });

  it('XSpace: a made-up device plane maps streams and ops; aggregated events are ignored', () => {
    const space = create(XSpaceSchema, {
      planes: [create(XPlaneSchema, {
        name: '/device:GPU:0',
        statMetadata: { 1: { id: 1n, name: 'hlo_op' }, 2: { id: 2n, name: 'hlo_module' } },
        eventMetadata: { 5: { id: 5n, name: 'fusion.1', stats: [{ metadataId: 2n, value: { case: 'strValue', value: 'jit_g' } }] } },
        lines: [create(XLineSchema, {
          id: 3n, name: 'Stream #3(Compute)', timestampNs: 1_700_000_000_000_000_000n,
          events: [
            create(XEventSchema, { metadataId: 5n, data: { case: 'offsetPs', value: 2_000_000n }, durationPs: 3_000_000n, stats: [{ metadataId: 1n, value: { case: 'strValue', value: 'fusion.1' } }] }),
            create(XEventSchema, { metadataId: 5n, data: { case: 'numOccurrences', value: 4n }, durationPs: 1n }),
          ],
        })],
      })],
    });
    const t = reduceXSpace(toBinary(XSpaceSchema, space), 2);
    expect(t.summary.tracks.map((k) => [k.process, k.name, k.kind])).toEqual([['/device:GPU:0', 'Stream #3(Compute)', 'stream']]);
    expect(t.ops).toEqual([{ module: 'jit_g', op: 'fusion.1', count: 1, totalUs: 3, meanUs: 3, minUs: 3, maxUs: 3 }]);
    expect(t.summary).toMatchObject({ events: 1, ignored: 1, startUs: 2, endUs: 5 });
  });
});

describe('sniffTraceFormat', () => {
  it('tells JSON from XSpace by the first bytes', () => {
    expect(sniffTraceFormat(new TextEncoder().encode('\uFEFF  {"traceEvents"'))).toBe('chrome-json');
    expect(sniffTraceFormat(new TextEncoder().encode('\n['))).toBe('chrome-json');
    expect(sniffTraceFormat(xplane.subarray(0, 8))).toBe('xplane');
    expect(sniffTraceFormat(new TextEncoder().encode('  '))).toBeUndefined();
  });
});
