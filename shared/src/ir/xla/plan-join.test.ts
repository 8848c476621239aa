import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from '../hlo/index';
import { parseBufferAssignment } from './buffer-assignment';
import { AllocationLookup, mergeAssignments } from './plan-join';

const file = (suffix: string): string =>
  readFileSync(new URL(`../../../../test/fixtures/xla-dump/attention/module_0000.jit_attention.cpu_after_optimizations${suffix}.txt`, import.meta.url), 'utf8');
const assignment = mergeAssignments(['-buffer-assignment', '-buffer-assignment-values', '-live-range'].map((s) => parseBufferAssignment(file(s)).ast));
const spills = indexHlo(file('')).index.spills;

describe('spill candidates joined to XLA’s buffer assignment (naive attention, S=8192)', () => {
  const lookup = new AllocationLookup(assignment ?? { allocations: [], totalBytes: 0, totalPrinted: false, usedValues: 0 });

  it('finds the allocation XLA made for the S×S score matrix, the values reusing its bytes, and whether it is live at the peak', () => {
    const scores = spills.find((s) => s.producer === 'dot_general.2');
    expect(scores?.bytes).toBe(268435456);
    expect(lookup.of(scores ?? spills[0]!)).toEqual({
      allocation: 24, allocationSize: 406863872, flags: ['preallocated-temp'], size: 268435456, offset: 0,
      sharedWith: ['wrapped_reduce-window', 'convert_exponential_fusion', 'convert_convert_fusion'], valuesInAllocation: 12, inPeak: false, line: 55,
    });
    expect(lookup.valueOf('convert_convert_fusion')?.inPeak).toBe(true);
  });

  it('places every candidate and compares the estimate with the allocations holding them', () => {
    expect(spills).toHaveLength(14);
    const c = lookup.compare(spills);
    expect(c).toEqual({
      candidates: 14, placed: 14, estimateBytes: spills.reduce((s, x) => s + x.bytes, 0), placedBytes: spills.reduce((s, x) => s + x.bytes, 0),
      allocations: 2, allocationBytes: 406863872 + 2097152, totalBytes: 415252540, peakBytes: 283115520, inPeak: 3,
    });
    // XLA reuses the temp allocation's bytes: the candidates add up to more than twice what it holds.
    expect(c.estimateBytes).toBe(969326592);
  });

  it('says nothing about the peak when the room has no live ranges, and nothing for a value XLA did not place', () => {
    const alone = new AllocationLookup(parseBufferAssignment(file('-buffer-assignment')).ast);
    expect(alone.valueOf('dot_general.2')?.inPeak).toBeUndefined();
    expect(alone.compare(spills).inPeak).toBeUndefined();
    expect(alone.valueOf('no-such-value')).toBeUndefined();
    expect(alone.valueOf('dot_general.2', [1])).toBeUndefined();
  });
});
