import type { SpillCandidate } from '../types';
import type { AllocatedValue, Allocation, AllocationFlag, BufferAssignment } from './types';

/** The allocation XLA made for one spill candidate's value. */
export interface SpillAllocation {
  readonly allocation: number;
  /** The allocation's size, and its flags (`preallocated-temp`, `maybe-live-out`…). */
  readonly allocationSize: number;
  readonly flags: readonly AllocationFlag[];
  /** The value's own slice of it. */
  readonly size: number;
  readonly offset: number;
  /** Other values of the allocation whose slices overlap this one: XLA reuses the bytes for them at other times. */
  readonly sharedWith: readonly string[];
  /** How many values the allocation holds in all. */
  readonly valuesInAllocation: number;
  /** Whether the value is live at the peak; undefined when the room has no live-range text for the module. */
  readonly inPeak: boolean | undefined;
  /** Line of the value in the buffer-assignment text. */
  readonly line: number;
}

/** The room's static estimate against XLA's plan for one module. */
export interface PlanComparison {
  readonly candidates: number;
  /** Candidates XLA placed in an allocation. */
  readonly placed: number;
  /** Sum of the candidates' bytes, as the index estimates them. */
  readonly estimateBytes: number;
  /** Sum of the placed candidates' slices, as XLA sized them. */
  readonly placedBytes: number;
  /** Distinct allocations holding candidates, and their total size. */
  readonly allocations: number;
  readonly allocationBytes: number;
  /** XLA's total, and the peak live bytes when known. */
  readonly totalBytes: number;
  readonly peakBytes: number | undefined;
  /** Candidates live at the peak, when known. */
  readonly inPeak: number | undefined;
}

/** `[1, 0]` → `{1,0}`; no index → `''`, as XLA prints values of instructions that are not tuples. */
function indexText(outputIndex: readonly number[] | undefined): string {
  return outputIndex && outputIndex.length > 0 ? `{${outputIndex.join(',')}}` : '';
}

/** A value's key: its name and shape index, the whole value (`{}`, or none printed) as the bare name. */
function valueKey(name: string, index: string): string {
  return index === '{}' ? name : `${name}${index}`;
}

/** Finds values by `name + index` in one pass over the allocations; build it once per assignment. */
export class AllocationLookup {
  private readonly byValue = new Map<string, { readonly allocation: Allocation; readonly value: AllocatedValue }>();
  private readonly peak: ReadonlySet<string> | undefined;

  constructor(private readonly assignment: BufferAssignment) {
    for (const allocation of assignment.allocations) {
      for (const value of allocation.values) {
        const key = valueKey(value.name, value.index);
        if (!this.byValue.has(key)) this.byValue.set(key, { allocation, value });
      }
    }
    this.peak = assignment.peak ? new Set(assignment.peak.values.map((v) => valueKey(v.name, v.index))) : undefined;
  }

  /** The allocation of `producer`'s value (element `outputIndex` of a tuple), or undefined when XLA placed none. */
  valueOf(producer: string, outputIndex?: readonly number[]): SpillAllocation | undefined {
    const key = `${producer}${indexText(outputIndex)}`;
    const hit = this.byValue.get(key);
    if (!hit) return undefined;
    // One pass over the allocation's values: a combined temp allocation may hold 10^5 of them.
    const { allocation, value } = hit;
    const end = value.offset + value.size;
    const sharedWith = allocation.values
      .filter((v) => v !== value && v.offset < end && value.offset < v.offset + v.size)
      .map((v) => `${v.name}${v.index}`);
    return {
      allocation: allocation.index, allocationSize: allocation.size, flags: allocation.flags, size: value.size, offset: value.offset,
      sharedWith, valuesInAllocation: allocation.values.length, inPeak: this.peak ? this.peak.has(key) : undefined, line: value.line,
    };
  }

  /** The allocation of a spill candidate's value. */
  of(c: SpillCandidate): SpillAllocation | undefined {
    return this.valueOf(c.producer, c.outputIndex);
  }

  /** The static estimate (the candidates' bytes) against the allocations XLA made for them. */
  compare(spills: readonly SpillCandidate[]): PlanComparison {
    let placed = 0;
    let estimateBytes = 0;
    let placedBytes = 0;
    let inPeak = 0;
    const allocations = new Map<number, number>();
    for (const c of spills) {
      estimateBytes += c.bytes;
      // Looked up without the sharing, which costs a pass over the allocation's values per candidate.
      const key = `${c.producer}${indexText(c.outputIndex)}`;
      const hit = this.byValue.get(key);
      if (!hit) continue;
      placed++;
      placedBytes += hit.value.size;
      if (this.peak?.has(key)) inPeak++;
      allocations.set(hit.allocation.index, hit.allocation.size);
    }
    let allocationBytes = 0;
    for (const size of allocations.values()) allocationBytes += size;
    return {
      candidates: spills.length, placed, estimateBytes, placedBytes, allocations: allocations.size, allocationBytes,
      totalBytes: this.assignment.totalBytes, peakBytes: this.assignment.peak?.bytes, inPeak: this.peak ? inPeak : undefined,
    };
  }
}

/**
 * One module's buffer assignment from the texts XLA split it into (allocations, used values,
 * live ranges): the allocations and total of the first that has allocations, the peak of the
 * first that has one.
 */
export function mergeAssignments(parts: readonly BufferAssignment[]): BufferAssignment | undefined {
  const main = parts.find((p) => p.allocations.length > 0);
  const withPeak = parts.find((p) => p.peak !== undefined);
  const withTotal = parts.find((p) => p.totalPrinted);
  const base = main ?? withPeak;
  if (!base) return undefined;
  return {
    ...base,
    totalBytes: withTotal?.totalBytes ?? base.totalBytes,
    totalPrinted: withTotal !== undefined,
    usedValues: Math.max(...parts.map((p) => p.usedValues)),
    ...(withPeak?.peak ? { peak: withPeak.peak, scheduleLength: withPeak.scheduleLength } : {}),
  };
}
