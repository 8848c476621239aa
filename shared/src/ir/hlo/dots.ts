import { einsumOf } from '../einsum';
import type { DotInfo, ValueType } from '../types';
import type { HloInstruction } from './ast';
import type { LineMap } from './line-map';

function dimsOf(t: ValueType | undefined): readonly number[] | undefined {
  return t && 'dims' in t ? t.dims : undefined;
}

/**
 * The `dot`s of one computation (fused or not), decoded with their operand shapes; `lookup` finds
 * an instruction of the computation named `scope` by name.
 */
export function collectDots(lookup: ScopeLookup, scope: string, dots: readonly HloInstruction[], lines: LineMap, out: DotInfo[]): void {
  for (const ins of dots) {
    if (ins.opcode !== 'dot' || !ins.attrs?.dot) continue;
    const [l, r] = ins.operands;
    const lhs = dimsOf(l === undefined ? undefined : lookup.get(l)?.type) ?? [];
    const rhs = dimsOf(r === undefined ? undefined : lookup.get(r)?.type) ?? [];
    const d = ins.attrs?.dot;
    out.push({
      name: ins.name, scope, line: lines.lineAt(ins.from), from: ins.from, to: ins.to, lhs, rhs,
      lhsBatch: d.lhsBatch, rhsBatch: d.rhsBatch, lhsContracting: d.lhsContracting, rhsContracting: d.rhsContracting,
      einsum: einsumOf(lhs.length, rhs.length, d),
    });
  }
}

/** The type of an instruction of one computation, by name. */
export interface ScopeLookup {
  get(name: string): { readonly type: ValueType } | undefined;
}
