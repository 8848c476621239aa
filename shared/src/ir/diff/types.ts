import type { Diagnostic, LoopInfo } from '../types';

/** Where one instruction of one module is: name, computation and 1-based line (for a view to open). */
export interface DiffPlace {
  readonly name: string;
  readonly scope: string;
  readonly line: number;
}

/** An instruction on one side only: where it is, its opcode, type and name stack. */
export interface DiffInstruction extends DiffPlace {
  readonly opcode: string;
  /** Type without layout, e.g. `f32[16,128]`. */
  readonly type: string;
  readonly opName?: string;
}

/**
 * How strictly a pair matched, strictest first: `exact` (opcode, shape, op_name, source position and
 * operands three deep), `renamed-stack` (the same, op_name aside: a `jax.checkpoint` or a transform
 * renames it), `near` (operands one deep), `loose` (no operands: opcode, shape and the source
 * position or op_name).
 */
export const MatchTier = { exact: 'exact', renamedStack: 'renamed-stack', near: 'near', loose: 'loose' } as const;
export type MatchTier = (typeof MatchTier)[keyof typeof MatchTier];

/** Two instructions taken for the same op of the program, one in each module. */
export interface DiffPair {
  readonly a: DiffPlace;
  readonly b: DiffPlace;
  readonly opcode: string;
  readonly tier: MatchTier;
}

/** Two computations paired by where most of their matched instructions went. */
export interface ComputationPair {
  readonly a: string;
  readonly b: string;
  readonly lineA: number;
  readonly lineB: number;
  /** Matched instructions between them. */
  readonly matched: number;
}

/** A kernel (a fusion, or an op XLA left unfused) as a fusion change names it. */
export interface DiffKernel extends DiffPlace {
  readonly opcode: string;
  /** Fusions: `kLoop`, `kOutput`, `kCustom`… */
  readonly kind?: string;
}

/**
 * `formed`: a fusion of B whose ops were unfused ops, or several fusions, in A. `split`: a fusion of
 * A whose ops went to several kernels of B. `gone`: a fusion of A whose ops are unfused, or no
 * longer there, in B. `added`: a fusion of B none of whose ops were in A.
 */
export const FusionChangeKind = { formed: 'formed', split: 'split', gone: 'gone', added: 'added' } as const;
export type FusionChangeKind = (typeof FusionChangeKind)[keyof typeof FusionChangeKind];

export interface FusionChange {
  readonly change: FusionChangeKind;
  /** The kernels of A involved (for `formed`: where B's fusion took its ops from). */
  readonly a: readonly DiffKernel[];
  /** The kernels of B involved (for `split`: where A's fusion's ops went). */
  readonly b: readonly DiffKernel[];
}

/** A custom-call kernel on one side only. */
export interface DiffCustomCall extends DiffPlace {
  readonly target: string;
  readonly kernelName?: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
}

/** A spill candidate of one module (see `SpillCandidate`). */
export interface DiffSpill extends DiffPlace {
  readonly type: string;
  readonly bytes: number;
  readonly traffic: number;
  readonly loop?: LoopInfo;
}

/** `kept`: the same value spills in both; `appeared`: only in B; `disappeared`: only in A. */
export const SpillChangeKind = { kept: 'kept', appeared: 'appeared', disappeared: 'disappeared' } as const;
export type SpillChangeKind = (typeof SpillChangeKind)[keyof typeof SpillChangeKind];

export interface SpillChange {
  readonly change: SpillChangeKind;
  readonly a?: DiffSpill;
  readonly b?: DiffSpill;
}

/** What one module holds, as the diff counts it. */
export interface DiffSide {
  readonly bytes: number;
  readonly lines: number;
  /** Instructions other than parameters of fused computations and ops of reducers. */
  readonly instructions: number;
  readonly fusions: number;
  readonly customCalls: number;
  readonly spills: number;
  /** Sum of the spill candidates' traffic (loop trips counted). */
  readonly traffic: number;
}

export interface DiffSummary {
  readonly matched: number;
  /** Matched, but not `exact`. */
  readonly changed: number;
  readonly added: number;
  readonly removed: number;
  readonly fusions: { readonly [K in FusionChangeKind]: number } & { readonly kept: number };
  readonly customCalls: { readonly added: number; readonly removed: number };
  readonly spills: {
    readonly appeared: number; readonly disappeared: number; readonly kept: number;
    /** Bytes of the candidates that appeared / disappeared. */
    readonly bytesAppeared: number; readonly bytesDisappeared: number;
  };
  readonly traffic: { readonly a: number; readonly b: number };
  /** Nothing added, removed, changed, fused otherwise or spilled otherwise. */
  readonly identical: boolean;
  /** Measured op time of each side, in µs, when both were given a trace (see `DiffOptions.opTimes`). */
  readonly opTime?: { readonly a: number; readonly b: number };
}

/** One op of a side with its measured time in a trace of that module. */
export interface DiffTimedOp extends DiffPlace {
  readonly opcode: string;
  readonly totalUs: number;
  readonly count: number;
}

/** Both sides' measured op time: totals in µs, how many ops the traces timed, the slowest of each. */
export interface DiffOpTime {
  readonly a: number;
  readonly b: number;
  readonly ops: { readonly a: number; readonly b: number };
  readonly slowest: { readonly a: readonly DiffTimedOp[]; readonly b: readonly DiffTimedOp[] };
}

/**
 * The structural diff of two HLO modules (A, the base, and B): instructions matched by what they
 * compute, not by name; what only one side has; fusion, custom-call and spill changes; traffic.
 * Every place carries its line in its own module, so a view can open both.
 */
export interface ModuleDiff {
  readonly a: DiffSide;
  readonly b: DiffSide;
  readonly summary: DiffSummary;
  readonly computations: readonly ComputationPair[];
  readonly pairs: readonly DiffPair[];
  /** In A only, in text order. */
  readonly removed: readonly DiffInstruction[];
  /** In B only, in text order. */
  readonly added: readonly DiffInstruction[];
  /** Fusions matched one to one (same ops), kinds as each side has them. */
  readonly fusionsKept: readonly { readonly a: DiffKernel; readonly b: DiffKernel }[];
  readonly fusionChanges: readonly FusionChange[];
  readonly customCalls: { readonly added: readonly DiffCustomCall[]; readonly removed: readonly DiffCustomCall[] };
  /** Largest bytes first. */
  readonly spills: readonly SpillChange[];
  /** Measured op times, when both sides were given a trace's op rows. */
  readonly opTime?: DiffOpTime;
  /** Parse diagnostics of A and B, errors and warnings only, each side's first few. */
  readonly diagnostics: { readonly a: readonly Diagnostic[]; readonly b: readonly Diagnostic[] };
}
