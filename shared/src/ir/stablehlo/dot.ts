import { einsumOf, type DotDimensions } from '../einsum';
import type { MlirOperation } from '../mlir/ast';
import type { Diagnostic, DotInfo } from '../types';

/**
 * Dimension numbers of a StableHLO/MHLO dot op, from any of its printed forms:
 * pretty `contracting_dims = [1] x [0]` and `batching_dims = [0] x [0]`, generic
 * `dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], …>`, older
 * `dense<[0]> : tensor<1xi64>` lists, and plain `stablehlo.dot` (lhs last axis with rhs first).
 * `undefined` when the op is not a dot.
 */
export function dotDimensions(op: MlirOperation, lhsRank: number): DotDimensions | undefined {
  const short = op.name.slice(op.name.lastIndexOf('.') + 1);
  if (short === 'dot') return { lhsBatch: [], rhsBatch: [], lhsContracting: lhsRank > 0 ? [lhsRank - 1] : [], rhsContracting: [0] };
  if (short !== 'dot_general') return undefined;
  let lhsBatch: number[] = [];
  let rhsBatch: number[] = [];
  let lhsContracting: number[] = [];
  let rhsContracting: number[] = [];
  for (const a of op.attributes) {
    if (a.key === 'contracting_dims') [lhsContracting, rhsContracting] = pair(a.value);
    else if (a.key === 'batching_dims') [lhsBatch, rhsBatch] = pair(a.value);
    else if (a.key === 'dot_dimension_numbers') {
      lhsBatch = field(a.value, 'lhs_batching_dimensions');
      rhsBatch = field(a.value, 'rhs_batching_dimensions');
      lhsContracting = field(a.value, 'lhs_contracting_dimensions');
      rhsContracting = field(a.value, 'rhs_contracting_dimensions');
    }
  }
  return { lhsBatch, rhsBatch, lhsContracting, rhsContracting };
}

/** The decoded dot of `op` given its operand dims, or `undefined` when it is not a dot. */
export function dotInfo(op: MlirOperation, scope: string, lhs: readonly number[], rhs: readonly number[]): DotInfo | undefined {
  const d = dotDimensions(op, lhs.length);
  if (!d) return undefined;
  return {
    from: op.from,
    to: op.to,
    name: op.results[0]?.name ?? op.name,
    scope,
    line: op.line,
    lhs,
    rhs,
    ...d,
    einsum: einsumOf(lhs.length, rhs.length, d),
  };
}

/** `[1, 2] x [0, 1]` → `[[1, 2], [0, 1]]`. */
function pair(value: string): [number[], number[]] {
  const m = /^\s*\[([^\]]*)\]\s*x\s*\[([^\]]*)\]/.exec(value);
  return m ? [ints(m[1] ?? ''), ints(m[2] ?? '')] : [[], []];
}

/** `lhs_batching_dimensions = [0, 1]` or `= dense<[0, 1]> : tensor<2xi64>` inside an attribute. */
function field(value: string, name: string): number[] {
  const m = new RegExp(`${name}\\s*=\\s*(?:\\[([^\\]]*)\\]|dense<\\[?([^\\]>]*)\\]?>)`).exec(value);
  return m ? ints(m[1] ?? m[2] ?? '') : [];
}

function ints(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(',')) {
    const t = part.trim();
    if (/^-?\d+$/.test(t)) out.push(Number(t));
  }
  return out;
}

const DOT_KEYS = new Set(['lhs_batching_dimensions', 'rhs_batching_dimensions', 'lhs_contracting_dimensions', 'rhs_contracting_dimensions']);

/**
 * Checks the grammar of a `#stablehlo.dot<key = [ints], …>` (or `#mhlo.dot<…>`) attribute whose
 * text starts at `offset`: known keys, `=`, an integer list, commas between entries. Returns the
 * problem with its span, or `undefined` when the attribute reads well (or is not a dot attribute).
 */
export function checkDotAttribute(value: string, offset: number): Diagnostic | undefined {
  const head = /^#(?:stablehlo|mhlo)\.dot</.exec(value);
  if (!head) return undefined;
  const re = /\s+|\/\/[^\n]*|[A-Za-z_]\w*|-?\d+|./gy;
  re.lastIndex = head[0].length;
  const toks: Array<{ t: string; at: number }> = [];
  for (let m = re.exec(value); m; m = re.exec(value)) {
    if (/^\s|^\/\//.test(m[0])) continue;
    toks.push({ t: m[0], at: m.index });
    if (m[0] === '>') break;
  }
  const fail = (at: number, message: string): Diagnostic => ({ severity: 'error', message: `failed parsing dot dimension numbers: ${message}`, from: offset + at, to: offset + Math.min(value.length, at + 1) });
  let i = 0;
  for (;;) {
    const key = toks[i];
    if (!key) return fail(value.length - 1, "expected '>'");
    if (key.t === '>') return undefined;
    if (!DOT_KEYS.has(key.t)) return fail(key.at, 'expected one of: lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions');
    if (toks[i + 1]?.t !== '=') return fail(toks[i + 1]?.at ?? key.at, "expected '='");
    if (toks[i + 2]?.t !== '[') return fail(toks[i + 2]?.at ?? key.at, "expected '['");
    i += 3;
    while (toks[i] && toks[i]?.t !== ']') {
      if (!/^-?\d+$|^,$/.test(toks[i]?.t ?? '')) return fail(toks[i]?.at ?? 0, 'expected an integer');
      i++;
    }
    i++;
    const sep = toks[i];
    if (sep?.t === ',') i++;
    else if (sep?.t !== '>') return fail(sep?.at ?? value.length - 1, "expected '>'");
  }
}
