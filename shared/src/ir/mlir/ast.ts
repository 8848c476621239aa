import type { Span } from '../types';
import type { MlirTokens } from './lexer';

/**
 * AST of MLIR text, kept shallow: operations with their results, operands, attributes, regions,
 * trailing type signature and location, which is what the StableHLO index needs. Every node has
 * a span into the original text.
 */

/** A named thing with its span, e.g. a result `%0` or an operand `%arg1`. */
export interface MlirName extends Span {
  readonly name: string;
}

/** A block or function argument: `%arg0: tensor<16x32xf32> {mhlo.sharding = …} loc("x")`. */
export interface MlirArgument extends MlirName {
  /** Type text as printed, e.g. `tensor<16x32xf32>`; empty when absent. */
  readonly type: string;
  readonly loc?: Span;
}

/** `key = value` in an attribute dictionary or in pretty syntax (`contracting_dims = [1] x [0]`). */
export interface MlirAttribute extends Span {
  readonly key: string;
  /** Value text as printed, trimmed; empty for unit attributes. */
  readonly value: string;
}

export interface MlirBlock extends Span {
  /** `^bb0`, absent for the entry block when not printed. */
  readonly label?: string;
  readonly args: readonly MlirArgument[];
  readonly ops: readonly MlirOperation[];
}

export interface MlirRegion extends Span {
  readonly blocks: readonly MlirBlock[];
}

export interface MlirOperation extends Span {
  /** `stablehlo.add`, `func.func`, `module`; the quoted name for generic form. */
  readonly name: string;
  /** True for generic form `"stablehlo.add"(…)`. */
  readonly generic: boolean;
  /** 1-based line of the op's first token. */
  readonly line: number;
  /** `%0`, or `%0#0`, `%0#1` for `%0:2 = …`. */
  readonly results: readonly MlirName[];
  readonly operands: readonly MlirName[];
  /** `@main` for symbols (func.func, module, custom_call target, call callee). */
  readonly symbol?: string;
  /** Function or block-like arguments printed in the op (func.func's signature, while's iter args). */
  readonly args: readonly MlirArgument[];
  readonly attributes: readonly MlirAttribute[];
  readonly regions: readonly MlirRegion[];
  /** Types after the last top-level `:` (or after `->` for func.func), split into a list. */
  readonly resultTypes: readonly string[];
  /** Operand types when the signature is a function type `(…) -> …`. */
  readonly operandTypes: readonly string[];
  /** The `loc(…)` that trails the op. */
  readonly loc?: Span;
}

/** One module (or one `// -----` chunk of a multi-module file). */
export interface MlirChunk extends Span {
  readonly ops: readonly MlirOperation[];
  /** `#loc12 = loc(…)` aliases of this chunk: name → span of the `loc(…)` expression. */
  readonly locAliases: ReadonlyMap<string, Span>;
  /** The chunk's tokens, so that locations resolve without lexing again. */
  readonly tokens: MlirTokens;
}

export interface MlirFile extends Span {
  readonly chunks: readonly MlirChunk[];
}
