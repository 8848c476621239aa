/**
 * What XLA itself printed about a compiled module: its buffer assignment, its memory-usage report,
 * and, for each HLO dump, the counts a pass sequence compares. Self-contained (no imports), so
 * that `DumpIndex` can carry these without a cycle.
 */

/** The flags `BufferAllocation::ToString` prints after an allocation's size. */
export const AllocationFlag = {
  parameter: 'parameter',
  output: 'output',
  constant: 'constant',
  threadLocal: 'thread-local',
  maybeLiveOut: 'maybe-live-out',
  preallocatedTemp: 'preallocated-temp',
} as const;
export type AllocationFlag = (typeof AllocationFlag)[keyof typeof AllocationFlag];

/** One value XLA placed in an allocation: ` value: <72 dot_general.2 @0> (size=268435456,offset=0): f32[8192,8192]{1,0}`. */
export interface AllocatedValue {
  /** XLA's HloValue id. */
  readonly id: number;
  /** The instruction that defines the value. */
  readonly name: string;
  /** Its shape index within a tuple-shaped instruction, `{1}`; `''` when the instruction is not a tuple. */
  readonly index: string;
  readonly size: number;
  readonly offset: number;
  /** Shape as printed, layout included. */
  readonly shape: string;
  /** Memory space (`@0`), when printed. */
  readonly color?: number;
  readonly phi?: boolean;
  /** 1-based line in the buffer-assignment text. */
  readonly line: number;
}

/** `allocation 24: size 406863872, preallocated-temp:` and its values. */
export interface Allocation {
  readonly index: number;
  readonly size: number;
  /** Memory space (`, color 1`); 0 when not printed. */
  readonly color: number;
  readonly flags: readonly AllocationFlag[];
  /** `parameter 1`: the entry parameter it holds. */
  readonly parameter?: number;
  /** The shape printed between bars: the parameter's (`shape |bf16[64,128]|`) or the output's (`output shape is |bf16[32]|`). */
  readonly shape?: string;
  readonly values: readonly AllocatedValue[];
  readonly line: number;
}

/** One value live at the peak: `convert_convert_fusion{}: 268435456 bytes (cumulative: 268435456 bytes)`. */
export interface PeakValue {
  readonly name: string;
  /** Shape index as printed, `{}` for the whole value. */
  readonly index: string;
  readonly bytes: number;
}

/** `HloLiveRange`'s peak: the schedule step and the values live there. */
export interface PeakLiveSet {
  /** `Live ranges at 18 (peak):` */
  readonly time: number;
  /** Sum of the values' bytes (the last cumulative figure). */
  readonly bytes: number;
  readonly values: readonly PeakValue[];
}

/**
 * A parsed buffer assignment: XLA's `*-buffer-assignment.txt` (and the `-values` and `-live-range`
 * files newer XLA splits it into, or the one file older XLA wrote with all three sections).
 */
export interface BufferAssignment {
  readonly allocations: readonly Allocation[];
  /** `Total bytes used:` when printed, else the sum of the allocations' sizes. */
  readonly totalBytes: number;
  /** Whether `totalBytes` is XLA's printed figure. */
  readonly totalPrinted: boolean;
  /** `Used values:` entries counted, when that section is present. */
  readonly usedValues: number;
  /** `HloLiveRange (max N)`'s N: the schedule length. */
  readonly scheduleLength?: number;
  readonly peak?: PeakLiveSet;
}

/** One row of a memory-usage report table: the values sharing one offset of one allocation. */
export interface MemoryReportRow {
  /** Size as printed (`8.0KiB`) and in bytes (exact for `B`, rounded as printed otherwise). */
  readonly sizeText: string;
  readonly bytes: number;
  readonly offset: number;
  readonly values: number;
  /** `bf16[8192,256], 3×f32[8192,8192]` split into its shapes with their counts. */
  readonly shapes: readonly { readonly shape: string; readonly count: number }[];
}

/** One memory space of a memory-usage report: `Memory Space: default (color=0)` and its tables. */
export interface MemorySpaceReport {
  readonly name: string;
  readonly color: number;
  readonly totalBytes: number;
  /** One table per allocation, largest allocation first, as printed. */
  readonly tables: readonly (readonly MemoryReportRow[])[];
}

/** A parsed `*-memory-usage-report.txt`. */
export interface MemoryReport {
  readonly spaces: readonly MemorySpaceReport[];
  /** Sum of the spaces' totals (or the report's own `Total bytes used:` in the older form). */
  readonly totalBytes: number;
}

/** What one HLO dump counts, for comparing passes. */
export interface PassStepCounts {
  /** Every instruction, fused computations included. */
  readonly instructions: number;
  readonly fusions: number;
  /** `copy` and `copy-start` outside fused computations: the copies that move memory. */
  readonly copies: number;
  /** Bytes of the values instructions outside fused computations produce, bitcasts, tuples, get-tuple-elements and parameters excepted. */
  readonly bytes: number;
}

/** `PassStepCounts` plus the names a delta needs. */
export interface PassStep extends PassStepCounts {
  readonly fusionNames: readonly string[];
  readonly copyNames: readonly string[];
}

/** What XLA's own files add to a dump's index. */
export interface XlaFacts {
  readonly bufferAssignment?: BufferAssignment;
  readonly memoryReport?: MemoryReport;
  /** For HLO dumps: the counts a pass sequence compares. */
  readonly step?: PassStep;
}
