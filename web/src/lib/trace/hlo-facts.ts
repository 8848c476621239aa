import type { DotInfo } from '@seam/shared/ir';
import { bareName, type IrLookup } from '../editor/ir/lookup';

/** What the optimized HLO says of one instruction a trace names: where it is, what it moves, what it computes. */
export interface HloFacts {
  /** Offsets of its definition in the dump, and its 1-based line. */
  readonly from: number;
  readonly to: number;
  readonly line: number;
  /** Operand plus output bytes; undefined when an operand's size is unknown. */
  readonly bytes?: number;
  /** FLOPs of the dots it is or holds (2 per multiply-add); undefined when it holds none. */
  readonly flops?: number;
}

/** `2 · |lhs| · |rhs free dims|`: each output element of a dot is a sum of K products. */
export function dotFlops(d: DotInfo): number {
  const prod = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);
  const rhsFree = d.rhs.filter((_, i) => !d.rhsBatch.includes(i) && !d.rhsContracting.includes(i));
  return 2 * prod(d.lhs) * prod(rhsFree);
}

/**
 * The operand names of an instruction's text, e.g. `%f = f32[4]{0} fusion(%a, %b.1), kind=kLoop, calls=%c`
 * → `a`, `b.1`: the `%names` inside the parentheses that follow the opcode, at depth one.
 */
export function operandNames(line: string): string[] {
  const eq = line.indexOf('=');
  // The opcode is the first word followed by `(`; a tuple type before it opens with a bare `(`.
  const m = eq < 0 ? null : /\s[a-z][\w-]*\(/.exec(line.slice(eq + 1));
  if (!m) return [];
  const open = eq + 1 + m.index + m[0].length - 1;
  let depth = 0;
  let end = line.length;
  for (let i = open; i < line.length; i++) {
    const ch = line[i];
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) {
      end = i;
      break;
    }
  }
  return [...line.slice(open + 1, end).matchAll(/%([\w.-]+)/g)].map((m) => m[1]!);
}

/**
 * The facts of HLO instruction `op` (a trace's `hlo_op`) in a dump: a fusion moves its inputs and
 * output (as the analysis counted them) and computes the dots of its fused computation; another
 * instruction moves its output and each operand (read from its line), and computes itself if a dot.
 * Undefined when the dump has no such instruction.
 */
export function hloFacts(lookup: IrLookup, text: string, op: string): HloFacts | undefined {
  const name = bareName(op);
  const value = lookup.values.get(name)?.[0];
  if (!value) return undefined;
  const lineEnd = text.indexOf('\n', value.from);
  const lineText = text.slice(value.from, lineEnd < 0 ? text.length : lineEnd);
  const fusion = lookup.fusionByName.get(name);
  const dots = fusion ? lookup.dots.filter((d) => bareName(d.scope) === bareName(fusion.calls)) : lookup.dots.filter((d) => bareName(d.name) === name);
  const flops = dots.length > 0 ? dots.reduce((a, d) => a + dotFlops(d), 0) : undefined;
  let bytes: number | undefined;
  if (fusion) bytes = fusion.inputBytes + fusion.outputBytes;
  else {
    bytes = value.bytes;
    for (const operand of operandNames(lineText)) {
      const v = lookup.values.get(operand)?.find((x) => x.scope === value.scope);
      if (!v) {
        bytes = undefined;
        break;
      }
      bytes += v.bytes;
    }
  }
  return { from: value.from, to: value.from + lineText.length, line: value.line, ...(bytes !== undefined ? { bytes } : {}), ...(flops !== undefined ? { flops } : {}) };
}
