import { readFileSync } from 'node:fs';
import { create, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { XEventSchema, XLineSchema, XPlaneSchema, XSpaceSchema, type XLine, type XPlane } from './gen/xplane_pb';
import { DEFAULT_TRACE_LIMITS, MemorySpool, TraceFormatError, TraceTooLarge, XSpaceReducer, type ReducedTrace, type TraceLimits } from './index';

const fixture = new Uint8Array(readFileSync(new URL('../../../test/fixtures/trace/mlp.xplane.pb', import.meta.url)));

function reduce(bytes: Uint8Array, chunk = 65_536, limits: TraceLimits = DEFAULT_TRACE_LIMITS): { trace: ReducedTrace; reducer: XSpaceReducer } {
  const reducer = new XSpaceReducer(limits);
  for (let i = 0; i < bytes.length; i += chunk) reducer.write(bytes.subarray(i, i + chunk));
  return { trace: reducer.end(), reducer };
}

/** An XSpace whose planes are given as their bytes (fields in any order), as field 1 of the XSpace each. */
function space(...planes: Uint8Array[]): Uint8Array {
  const w = new BinaryWriter();
  for (const p of planes) w.tag(1, WireType.LengthDelimited).bytes(p);
  return w.finish();
}

const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** A device plane with one op line of `n` events (ops tagged by stat references, as XLA writes them) and a steps line. */
function devicePlane(n: number): XPlane {
  const ops = Array.from({ length: 50 }, (_, i) => `fusion.${i}`);
  const statMetadata = Object.fromEntries([['1', { id: 1n, name: 'hlo_op' }], ['2', { id: 2n, name: 'hlo_module' }], ['3', { id: 3n, name: 'step_num' }], ['4', { id: 4n, name: 'jit_step' }],
    ...ops.map((op, i) => [String(10 + i), { id: BigInt(10 + i), name: op }])]);
  const eventMetadata = Object.fromEntries([...ops.map((op, i) => [String(100 + i), { id: BigInt(100 + i), name: op }]), ['99', { id: 99n, name: 'step' }]]);
  const events = Array.from({ length: n }, (_, k) => create(XEventSchema, {
    metadataId: BigInt(100 + (k % 50)), data: { case: 'offsetPs', value: BigInt(k * 2_000_000) }, durationPs: BigInt(1_000_000 + (k % 7) * 1000),
    stats: [{ metadataId: 1n, value: { case: 'refValue', value: BigInt(10 + (k % 50)) } }, { metadataId: 2n, value: { case: 'refValue', value: 4n } }],
  }));
  const steps = create(XLineSchema, {
    id: 2n, name: 'Steps', timestampNs: 1000n,
    events: [create(XEventSchema, { metadataId: 99n, data: { case: 'offsetPs', value: 0n }, durationPs: BigInt(n * 2_000_000), stats: [{ metadataId: 3n, value: { case: 'int64Value', value: 7n } }] })],
  });
  const lines: XLine[] = [create(XLineSchema, { id: 1n, name: 'XLA Ops', displayName: 'XLA Ops', timestampNs: 1000n, events }), create(XLineSchema, { id: 9n, name: 'empty' }), steps];
  return create(XPlaneSchema, { id: 1n, name: '/device:GPU:0', lines, eventMetadata, statMetadata });
}

describe('XSpaceReducer reading planes back by offsets', () => {
  it('reduces a plane the same whether its metadata comes after its lines (as TSL writes it) or before, and a line whose own fields follow its events', () => {
    const plane = devicePlane(3000);
    const canonical = reduce(toBinary(XSpaceSchema, create(XSpaceSchema, { planes: [plane] }))).trace;
    const meta = toBinary(XPlaneSchema, create(XPlaneSchema, { id: plane.id, name: plane.name, eventMetadata: plane.eventMetadata, statMetadata: plane.statMetadata }));
    // Each line as its events, then its own fields (id, names, start): concatenated encodings merge, as protobuf says.
    const lineFirst = (l: XLine) => cat(toBinary(XLineSchema, create(XLineSchema, { events: l.events })), toBinary(XLineSchema, create(XLineSchema, { ...l, events: [] })));
    const lines = new BinaryWriter();
    for (const l of plane.lines) lines.tag(3, WireType.LengthDelimited).bytes(lineFirst(l));
    const linesBytes = lines.finish();
    for (const bytes of [space(cat(meta, linesBytes)), space(cat(linesBytes, meta))]) {
      for (const chunk of [1000, bytes.length]) {
        const t = reduce(bytes, chunk).trace;
        expect(t.summary).toEqual(canonical.summary);
        expect(t.ops).toEqual(canonical.ops);
        expect(t.strings).toEqual(canonical.strings);
        expect(t.columns).toEqual(canonical.columns);
      }
    }
    expect(canonical.summary.events).toBe(3001);
    expect(canonical.summary.steps).toEqual([{ step: 7, name: 'step', startUs: 1, durUs: 6000, track: 1 }]);
    expect(canonical.ops).toHaveLength(50);
    expect(canonical.ops.every((o) => o.module === 'jit_step' && o.count === 60)).toBe(true);
  });

  it('holds a bounded window of the trace whatever the size of its planes and lines, and reduces every event', () => {
    const small = toBinary(XSpaceSchema, create(XSpaceSchema, { planes: [devicePlane(20_000)] }));
    const large = toBinary(XSpaceSchema, create(XSpaceSchema, { planes: [devicePlane(150_000)] }));
    expect(large.length).toBeGreaterThan(3 * 1024 * 1024);
    const a = reduce(small);
    const b = reduce(large);
    expect(a.trace.summary.events).toBe(20_001);
    expect(b.trace.summary.events).toBe(150_001);
    expect(b.trace.ops.reduce((n, o) => n + o.count, 0)).toBe(150_000);
    // The window (1 MiB) and one line's own fields: the same for a plane several times the size.
    expect(a.reducer.peakHeldBytes).toBeLessThan(1.05 * 1024 * 1024);
    expect(b.reducer.peakHeldBytes).toBe(a.reducer.peakHeldBytes);
  }, 60_000);

  it('keeps in memory no more than the plane being read, released once it is reduced', () => {
    const spool = new MemorySpool();
    const plane = toBinary(XPlaneSchema, devicePlane(5000));
    const bytes = space(plane, plane, plane);
    const r = new XSpaceReducer(DEFAULT_TRACE_LIMITS, spool);
    let most = 0;
    for (let i = 0; i < bytes.length; i += 4096) {
      r.write(bytes.subarray(i, i + 4096));
      most = Math.max(most, spool.held);
    }
    expect(r.end().summary.events).toBe(3 * 5001);
    expect(most).toBeLessThan(plane.length + 2 * 65_536);
  });

  it('refuses an event or a metadata entry past maxEventBytes, and a plane whose fields run past its end', () => {
    const bytes = toBinary(XSpaceSchema, create(XSpaceSchema, { planes: [devicePlane(100)] }));
    expect(() => reduce(bytes, 4096, { ...DEFAULT_TRACE_LIMITS, maxEventBytes: 12 })).toThrow(TraceTooLarge);
    expect(() => reduce(bytes, 4096, { ...DEFAULT_TRACE_LIMITS, maxEventBytes: 12 })).toThrow(/more than 12/);
    // A line (field 3) of 5 bytes holding an event (field 4) that claims 100.
    expect(() => reduce(space(new Uint8Array([0x1a, 0x05, 0x22, 0x64, 0x08, 0x01, 0x10])))).toThrow(TraceFormatError);
    expect(() => reduce(space(new Uint8Array([0x1a, 0x05, 0x22, 0x64, 0x08, 0x01, 0x10])))).toThrow(/plane 0 of the XSpace is not a valid XPlane: field 4 at byte \d+ runs past the end/);
  });

  it('reads the real CPU capture the same in pieces of any size', () => {
    const whole = reduce(fixture, fixture.length).trace;
    for (const chunk of [1, 97, 8192]) expect(reduce(fixture, chunk).trace).toEqual(whole);
    expect(whole.summary.events).toBeGreaterThan(0);
  });
});
