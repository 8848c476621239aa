import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeGate, GateError, type GateErrorCode, type GateInput, type OpTime } from './gate';
import { indexHlo } from './hlo/index';

const read = (path: string): string => readFileSync(new URL(`../../../test/fixtures/${path}`, import.meta.url), 'utf8');

// A real CPU capture of the naive attention (bf16[8192,128] ×3, YNN fusion off), written by the
// capture harness: its per-op table from the profiler trace, its measured bandwidth and cost analysis.
const CAPTURE = 'gate/attention-cpu';
const optimized = read('ir/attention/hlo-opt.txt');
const index = indexHlo(optimized, 'hlo-opt').index;
const opsJson = JSON.parse(read(`${CAPTURE}/ops.json`)) as { name: string; module: string; totalUs: number; count: number }[];
const opTimes: OpTime[] = opsJson.map((r) => ({ module: r.module, op: r.name, totalUs: r.totalUs, count: r.count }));
const result = JSON.parse(read(`${CAPTURE}/result.json`)) as { provenance: { bandwidth: { bytesPerSecond: number } }; trace: { repeats: number } };
const bandwidth = result.provenance.bandwidth.bytesPerSecond;
const runs = result.trace.repeats;
const costModel = (JSON.parse(read(`${CAPTURE}/cost.json`)) as Record<string, number>)['bytes accessed'] as number;

const totalOf = (op: string): number => opsJson.find((r) => r.name === op)?.totalUs ?? Number.NaN;
const S2F32 = 8192 * 8192 * 4;

function gateError(input: GateInput): GateError {
  try {
    computeGate(input);
  } catch (e) {
    if (e instanceof GateError) return e;
    throw e;
  }
  throw new Error('computeGate did not throw');
}

function expectCode(input: GateInput, code: GateErrorCode, message: RegExp): void {
  const e = gateError(input);
  expect(e.code).toBe(code);
  expect(e.message).toMatch(message);
}

describe('computeGate on a real CPU attention capture', () => {
  it('is computed from the trace that ran this very dump', () => {
    expect(read(`${CAPTURE}/hlo-opt.txt`)).toBe(optimized);
    expect(runs).toBe(3);
    expect(opsJson.every((r) => r.module === 'jit_attention' && r.count === runs)).toBe(true);
  });

  it('takes the top spill candidate: the f32 S×S exponentials, written once and read twice', () => {
    const g = computeGate({ index, opTimes, bandwidthBytesPerS: bandwidth, runs, costModelBytes: costModel });
    expect(g.candidate).toMatchObject({ name: 'convert_exponential_fusion', type: 'f32[8192,8192]{1,0}', bytes: S2F32, module: 'jit_attention' });
    expect(g.estimateBytes).toBe(3 * S2F32);
    expect(g.ops.map((o) => [o.role, o.op])).toEqual([
      ['writes', 'convert_exponential_fusion'],
      ['reads', 'wrapped_reduce-window.2'],
      ['reads', 'convert_convert_fusion'],
    ]);
    // every figure from the trace rows named above, over the runs the trace covers
    const us = totalOf('convert_exponential_fusion') + totalOf('wrapped_reduce-window.2') + totalOf('convert_convert_fusion');
    expect(g.measuredSeconds).toBeCloseTo(us / runs / 1e6, 12);
    expect(g.measuredBytes).toBeCloseTo((us / runs / 1e6) * bandwidth, 0);
    expect(g.ratios.measuredToEstimate).toBeCloseTo(g.measuredBytes / (3 * S2F32), 12);
    expect(g.costModelBytes).toBe(costModel);
    expect(g.ratios.costModelToEstimate).toBeCloseTo(costModel / (3 * S2F32), 12);
    expect(g.ratios.measuredToCostModel).toBeCloseTo(g.measuredBytes / costModel, 12);
    expect(g.pass).toBe(Math.abs(g.ratios.measuredToEstimate - 1) <= 0.2);
    // each op's line is the line of its instruction in the dump
    const lines = optimized.split('\n');
    for (const o of g.ops) expect(lines[(o.line ?? 0) - 1]).toContain(`%${o.op} = `);
    expect(g.explanation[0]).toContain('candidate convert_exponential_fusion (f32[8192,8192]{1,0}');
    expect(g.explanation[1]).toBe('estimate: 268,435,456 B × (1 write + 2 reads) = 805.3 MB (805,306,368 B)');
    expect(g.explanation.at(-1)).toMatch(/^measured \/ estimate = \d+\.\d{3}: .*% off, (within|outside) the 20% bar: (pass|fail)$/);
  });

  it('takes a named candidate: the dot that writes the scores, read by one convert', () => {
    const g = computeGate({ index, opTimes, bandwidthBytesPerS: bandwidth, runs, candidate: '%dot_general.2' });
    expect(g.candidate.name).toBe('dot_general.2');
    expect(g.estimateBytes).toBe(2 * S2F32);
    expect(g.ops.map((o) => `${o.role} ${o.op}`)).toEqual(['writes dot_general.2', 'reads wrapped_convert.2']);
    expect(g.costModelBytes).toBeUndefined();
    expect(g.ratios.costModelToEstimate).toBeUndefined();
  });

  it('passes within the bar and fails past it', () => {
    const g = computeGate({ index, opTimes, bandwidthBytesPerS: bandwidth, runs });
    const exact = g.estimateBytes / g.measuredSeconds;
    const at = (factor: number, bar?: number) => computeGate({ index, opTimes, bandwidthBytesPerS: exact * factor, runs, ...(bar !== undefined ? { bar } : {}) });
    expect(at(1).ratios.measuredToEstimate).toBeCloseTo(1, 12);
    expect(at(1).pass).toBe(true);
    expect(at(1.19).pass).toBe(true);
    expect(at(0.81).pass).toBe(true);
    expect(at(1.25).pass).toBe(false);
    expect(at(0.75).pass).toBe(false);
    expect(at(1.25, 0.3).pass).toBe(true);
    expect(at(1.25, 0.3).explanation.at(-1)).toContain('within the 30% bar: pass');
  });

  it('without a run count, takes each op at its mean per occurrence', () => {
    const g = computeGate({ index, opTimes, bandwidthBytesPerS: bandwidth });
    expect(g.runs).toBeUndefined();
    expect(g.ops[0]?.perRunUs).toBeCloseTo(totalOf('convert_exponential_fusion') / 3, 9);
    expect(g.explanation.some((l) => l.includes('no run count given'))).toBe(true);
    // one occurrence per run here, so both readings agree
    expect(g.measuredSeconds).toBeCloseTo(computeGate({ index, opTimes, bandwidthBytesPerS: bandwidth, runs }).measuredSeconds, 12);
  });
});

describe('computeGate refuses what it cannot compute, by name', () => {
  const base: GateInput = { index, opTimes, bandwidthBytesPerS: bandwidth, runs };

  it('a dump without spill candidates', () => {
    const unoptimized = indexHlo(read('ir/attention/hlo.txt'), 'hlo').index;
    expect(unoptimized.spills).toEqual([]);
    expectCode({ ...base, index: unoptimized }, 'no-candidate', /no spill candidate/);
  });

  it('a candidate the dump does not have', () => {
    expectCode({ ...base, candidate: 'softmax_fusion' }, 'unknown-candidate', /softmax_fusion is not a spill candidate.*convert_exponential_fusion/);
  });

  it('an op missing from the trace', () => {
    expectCode({ ...base, opTimes: opTimes.filter((r) => r.op !== 'convert_convert_fusion') }, 'op-not-in-trace', /no events for convert_convert_fusion of module jit_attention/);
  });

  it('a trace of another module', () => {
    expectCode({ ...base, opTimes: opTimes.map((r) => ({ ...r, module: 'jit_other' })) }, 'op-not-in-trace', /no events for convert_exponential_fusion, wrapped_reduce-window.2, convert_convert_fusion/);
  });

  it('two rows for one op', () => {
    const row = opTimes.find((r) => r.op === 'convert_convert_fusion') as OpTime;
    expectCode({ ...base, opTimes: [...opTimes, row] }, 'ambiguous-op', /2 rows for convert_convert_fusion/);
  });

  it('zero, negative or missing bandwidth', () => {
    for (const bw of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expectCode({ ...base, bandwidthBytesPerS: bw }, 'bad-bandwidth', /positive number of bytes per second/);
  });

  it('bad runs, bar, cost-model bytes or op times', () => {
    expectCode({ ...base, runs: 0 }, 'bad-input', /runs must be a whole number/);
    expectCode({ ...base, runs: 1.5 }, 'bad-input', /runs must be a whole number/);
    expectCode({ ...base, bar: -0.1 }, 'bad-input', /the bar must be/);
    expectCode({ ...base, costModelBytes: Number.NaN }, 'bad-input', /cost model's bytes/);
    expectCode({ ...base, opTimes: [{ op: 'x', totalUs: -1, count: 1 }] }, 'bad-input', /op x: totalUs must be/);
  });
});
