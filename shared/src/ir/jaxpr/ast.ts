import type { SourceRef, Span } from '../types';

/** AST of jaxpr text. Every node carries its span; types are kept as printed (`f32[16,32]`). */

/** A binder or operand: a variable (`a`, `_`), a literal (`1.0:f32[]`, `2.`), or `*`. */
export interface JaxprAtom extends Span {
  readonly text: string;
  /** Printed type, e.g. `bf16[32,64]`; empty when the printer gave none (legacy format). */
  readonly type: string;
  readonly literal: boolean;
}

/** `name=value` inside `prim[…]`; `jaxprs` holds every `{ lambda … }` found in the value. */
export interface JaxprParam extends Span {
  readonly name: string;
  /** Value text as printed, trimmed. */
  readonly value: string;
  readonly jaxprs: readonly Jaxpr[];
}

export interface JaxprEquation extends Span {
  readonly line: number;
  readonly outvars: readonly JaxprAtom[];
  readonly primitive: string;
  readonly params: readonly JaxprParam[];
  readonly invars: readonly JaxprAtom[];
  /** `<-` for state reads/writes (`d:f32[8] <- a[:]`), `=` otherwise. */
  readonly binder: '=' | '<-';
  /** From `# file.py:12:3 (fn)` comments when printed with source info. */
  readonly source?: SourceRef;
  /** From the `# [outer/inner]` comment when printed with `name_stack=True`; empty when `[]`. */
  readonly nameStack?: string;
}

export interface Jaxpr extends Span {
  /** Name of a `let name = { lambda … } in` definition; absent for the main jaxpr and inline ones. */
  readonly name?: string;
  readonly lineFrom: number;
  readonly lineTo: number;
  readonly constvars: readonly JaxprAtom[];
  readonly invars: readonly JaxprAtom[];
  readonly equations: readonly JaxprEquation[];
  readonly outvars: readonly JaxprAtom[];
}

export interface JaxprFile extends Span {
  /** Shared `let` definitions first, then the main jaxpr(s), in text order. */
  readonly jaxprs: readonly Jaxpr[];
}
