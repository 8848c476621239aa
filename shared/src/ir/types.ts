import type { DocumentKind } from '../model/document';
import type { XlaFacts } from './xla/types';

/**
 * Shared vocabulary of the IR core. Every parser returns `ParseResult<Ast>` and never throws on
 * user input; every analysis produces one `DumpIndex` per dump. Offsets are UTF-16 code-unit
 * offsets into the text (what JavaScript strings and CodeMirror use); lines are 1-based.
 */
export interface Span {
  readonly from: number;
  readonly to: number;
}

export const Severity = { error: 'error', warning: 'warning', info: 'info' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface Diagnostic extends Span {
  readonly severity: Severity;
  readonly message: string;
}

export interface ParseResult<Ast> {
  readonly ast: Ast;
  readonly diagnostics: readonly Diagnostic[];
}

/** Element types with their sizes in bits, across jaxpr (`f32`), MLIR (`f32`, `i1`, `complex<f32>`) and HLO (`pred`, `s32`). */
export type DType = string;

/** One array value's type: dtype plus dimensions (`-1` for a dynamic dimension). */
export interface ArrayType {
  readonly dtype: DType;
  readonly dims: readonly number[];
  /** Layout text as printed, e.g. `{1,0:T(8,128)(2,1)}`, without braces interpretation. */
  readonly layout?: string;
  /** Memory space from the layout, e.g. `S(1)` → 1. */
  readonly memorySpace?: number;
}

/** A tuple or array type; tuples nest. */
export type ValueType = { readonly tuple: readonly ValueType[] } | ArrayType;

/** Where a value or op came from, as the dump says. */
export interface SourceRef {
  /** Name stack, e.g. `jit(mlp)/jit(main)/dot_general`. */
  readonly opName?: string;
  readonly file?: string;
  readonly line?: number;
  /** Column as the dump prints it (jaxpr source info, MLIR file locations); JAX prints Python's 0-based offset. */
  readonly column?: number;
}

export const OutlineKind = {
  module: 'module',
  computation: 'computation',
  function: 'function',
  fusion: 'fusion',
  jaxpr: 'jaxpr',
  region: 'region',
} as const;
export type OutlineKind = (typeof OutlineKind)[keyof typeof OutlineKind];

export interface OutlineEntry extends Span {
  readonly name: string;
  readonly kind: OutlineKind;
  readonly lineFrom: number;
  readonly lineTo: number;
  /** Instructions, ops or equations directly inside. */
  readonly opCount: number;
  /** For fused computations (HLO): the fusion kind of the instruction that calls it, e.g. `kLoop`. */
  readonly fusionKind?: string;
  readonly isEntry?: boolean;
  readonly children?: readonly OutlineEntry[];
}

/** A named value (HLO instruction result, MLIR SSA value, jaxpr variable) with its type and size. */
export interface ValueInfo extends Span {
  readonly name: string;
  /** Enclosing computation / function / jaxpr, for names that repeat across scopes. */
  readonly scope: string;
  readonly line: number;
  /** Type as printed, e.g. `bf16[8192,8192]{1,0}` or `tensor<16x32xf32>`. */
  readonly type: string;
  readonly bytes: number;
}

/** A decoded dot_general (or HLO `dot`). */
export interface DotInfo extends Span {
  readonly name: string;
  readonly scope: string;
  readonly line: number;
  readonly lhs: readonly number[];
  readonly rhs: readonly number[];
  readonly lhsBatch: readonly number[];
  readonly rhsBatch: readonly number[];
  readonly lhsContracting: readonly number[];
  readonly rhsContracting: readonly number[];
  /** Einsum-like string, e.g. `ij,jk->ik` or `bij,bjk->bik`. */
  readonly einsum: string;
}

export interface FusionInfo extends Span {
  /** Name of the fusion instruction, e.g. `fusion.3`. */
  readonly name: string;
  readonly scope: string;
  readonly line: number;
  /** `kLoop`, `kInput`, `kOutput`, `kCustom`… */
  readonly kind: string;
  /** The fused computation it calls. */
  readonly calls: string;
  readonly fusedOps: number;
  readonly inputBytes: number;
  readonly outputBytes: number;
}

/** A value one kernel writes to memory and other kernels read back. */
export interface SpillCandidate extends Span {
  /** Producing instruction (a kernel: fusion, custom-call, dot, convolution, copy…). */
  readonly producer: string;
  readonly scope: string;
  readonly line: number;
  readonly type: string;
  readonly bytes: number;
  /** Consuming kernels, by instruction name. */
  readonly consumers: readonly string[];
  /**
   * bytes × (1 write + 1 read per consuming kernel), times `loop.trips` when the producer runs in
   * while loops whose trip counts XLA knows (and does not update the value in place).
   */
  readonly traffic: number;
  /** When the producer writes a tuple (a multi-output fusion), the element read: `[1]` is `{1}`. */
  readonly outputIndex?: readonly number[];
  /** Set when the producer runs inside a while body (or condition); absent outside loops. */
  readonly loop?: LoopInfo;
}

/** The while loops a spill candidate's producer runs in. */
export interface LoopInfo {
  /** The enclosing while instructions, outermost first. */
  readonly whiles: readonly string[];
  /**
   * Runs of the producer per run of the program: the product of the loops' `known_trip_count`s;
   * absent when XLA proved no trip count for some loop (traffic then counts one trip).
   */
  readonly trips?: number;
  /**
   * The producer writes a slice of a loop-carried buffer in place (a dynamic-update-slice, as a
   * `scan` stacking its outputs does): the trips together write the buffer once, so its traffic is
   * not multiplied.
   */
  readonly inPlace?: boolean;
}

/** One operand or result of a kernel: its value's name (operands), type as printed and bytes. */
export interface KernelValue {
  readonly name?: string;
  readonly type: string;
  readonly bytes: number;
}

/**
 * A custom-call instruction (HLO), listed as a kernel: Pallas/Mosaic kernels (`tpu_custom_call`),
 * library calls (`__cublas$gemm`), FFI targets. Its outputs are values like any other kernel's, so
 * spill detection finds the ones other kernels read back.
 */
export interface KernelInfo extends Span {
  readonly name: string;
  readonly scope: string;
  readonly line: number;
  /** `custom_call_target`, e.g. `tpu_custom_call`. */
  readonly target: string;
  /** The kernel's own name when the backend config or metadata says it (`kernel_name`, `name`). */
  readonly kernelName?: string;
  readonly operands: readonly KernelValue[];
  /** One per element of a tuple result, else one. */
  readonly results: readonly KernelValue[];
  readonly inputBytes: number;
  readonly outputBytes: number;
}

/** Ties one op of one layer to the program: name stack and source position. */
export interface CrossLayerKey extends Span {
  /** jaxpr: output variable(s) joined by `,`; StableHLO: SSA result or op index; HLO: instruction name. */
  readonly name: string;
  /** Primitive or opcode: `dot_general`, `stablehlo.dot_general`, `dot`, `fusion`. */
  readonly op: string;
  readonly scope: string;
  readonly line: number;
  readonly source: SourceRef;
  /** HLO: the fusion instruction whose fused computation holds this instruction. */
  readonly fusion?: string;
  /**
   * HLO, StableHLO: the op sits in a computation or region another op applies per element (a
   * reduce's reducer, a sort's comparator, a scatter's combiner); it is part of that op and is
   * joined to no equation of its own.
   */
  readonly applied?: true;
}

/** Everything the views need about one dump, computed once at ingest. */
export interface DumpIndex {
  readonly kind: DocumentKind;
  readonly bytes: number;
  readonly lines: number;
  readonly outline: readonly OutlineEntry[];
  readonly values: readonly ValueInfo[];
  readonly dots: readonly DotInfo[];
  readonly fusions: readonly FusionInfo[];
  /** Ranked by traffic, largest first. Empty for dumps that are not optimized HLO. */
  readonly spills: readonly SpillCandidate[];
  readonly keys: readonly CrossLayerKey[];
  /** HLO: custom-call kernels, in text order. Absent for other dialects. */
  readonly kernels?: readonly KernelInfo[];
  /** What XLA's own files say: buffer assignment, memory report, or (HLO) the pass-sequence counts. */
  readonly xla?: XlaFacts;
}

/** What `analyze` returns: the index plus every diagnostic of parse and analysis. */
export interface Analysis {
  readonly index: DumpIndex;
  readonly diagnostics: readonly Diagnostic[];
}

/** An op of another layer joined to a jaxpr equation by `linkLayers`. */
export interface LinkedOp {
  /** StableHLO SSA result(s) or HLO instruction name. */
  readonly name: string;
  /** `stablehlo.dot_general`, `dot`, `fusion`… */
  readonly op: string;
  readonly scope: string;
  readonly line: number;
  /** HLO: the fusion instruction whose fused computation holds this instruction. */
  readonly fusion?: string;
}

/** One jaxpr equation with the StableHLO ops and HLO instructions it became. */
export interface MappingRow {
  /** Output variables, e.g. `d` or `d,e`. */
  readonly equation: string;
  readonly primitive: string;
  readonly scope: string;
  readonly line: number;
  /** Name stack and source position the three layers were joined on. */
  readonly source: SourceRef;
  readonly stablehlo: readonly LinkedOp[];
  readonly hlo: readonly LinkedOp[];
}
