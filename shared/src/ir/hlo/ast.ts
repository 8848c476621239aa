import type { Span, ValueType } from '../types';

/** `metadata={op_name="…" source_file="…" source_line=12 stack_frame_id=3}`, decoded. */
export interface HloMetadata {
  readonly opName?: string;
  readonly opType?: string;
  readonly sourceFile?: string;
  readonly sourceLine?: number;
  readonly stackFrameId?: number;
}

/** The dimension attributes of `dot`: `lhs_batch_dims={0}, lhs_contracting_dims={2}, …`. */
export interface HloDotDims {
  lhsBatch: number[];
  rhsBatch: number[];
  lhsContracting: number[];
  rhsContracting: number[];
}

/** The attributes that name other computations, and a dot's dimensions, as one optional group. */
export interface HloCalls {
  /** `kind=kLoop` of a fusion. */
  readonly fusionKind?: string;
  /** `calls=` (fusion, async start, custom-call): computation names. */
  readonly calls?: string[];
  readonly toApply?: string;
  readonly condition?: string;
  readonly body?: string;
  /** `branch_computations={…}`, or `true_computation`/`false_computation` in that order. */
  readonly branches?: string[];
  readonly dot?: HloDotDims;
  /** `custom_call_target="tpu_custom_call"` of a custom-call. */
  readonly customCallTarget?: string;
  /** A custom-call's kernel name, from `kernel_name` or `name` in its `backend_config`. */
  readonly kernelName?: string;
}

/**
 * One instruction: `[ROOT] %name = type opcode(operands), attr=value, …`. Only the attributes the
 * analysis uses are decoded; the span covers the whole instruction so views can show the rest.
 */
export interface HloInstruction extends Span {
  readonly name: string;
  readonly isRoot: boolean;
  readonly opcode: string;
  readonly type: ValueType;
  /** Type as printed, layout included: `bf16[8192,128]{1,0:T(8,128)(2,1)}`. */
  readonly typeText: string;
  readonly bytes: number;
  /** Operand instruction names, `%` dropped, in order. */
  readonly operands: readonly string[];
  /** `parameter(N)`'s N, `get-tuple-element`'s `index=N`; -1 otherwise. */
  readonly number: number;
  readonly metadata: HloMetadata | undefined;
  /** Called computations and dot dimensions; undefined on most instructions, which have none. */
  readonly attrs: HloCalls | undefined;
}

/** `%name (params) -> type { … }` or the short form `name { … }`, with `ENTRY` marking the entry. */
export interface HloComputation extends Span {
  readonly name: string;
  readonly isEntry: boolean;
  readonly instructions: HloInstruction[];
}

/** One row of `FileLocations`: `1 {file_name_id=1 function_name_id=2 line=3 …}`. */
export interface HloFileLocation {
  readonly fileNameId: number;
  readonly functionNameId: number;
  readonly line: number;
  /** `column=`, as JAX records it (Python's 0-based offset); absent when not printed. */
  readonly column?: number;
}

/** The stack-frame tables newer XLA prints after the module header instead of inline source. */
export interface HloStackFrames {
  readonly fileNames: Map<number, string>;
  readonly functionNames: Map<number, string>;
  readonly fileLocations: Map<number, HloFileLocation>;
  /** Frame id → `{file_location_id, parent_frame_id}`. */
  readonly frames: Map<number, { readonly fileLocationId: number; readonly parentFrameId: number }>;
}

/** One `HloModule` (or, in a file without a header, the computations it holds). */
export interface HloModule extends Span {
  /** Empty when the text has no `HloModule` header. */
  readonly name: string;
  readonly hasHeader: boolean;
  readonly isScheduled: boolean;
  readonly computations: HloComputation[];
  readonly stackFrames: HloStackFrames;
}

/** What `parseHlo` reads from one text: its modules in order. */
export interface HloFile {
  readonly modules: HloModule[];
}
