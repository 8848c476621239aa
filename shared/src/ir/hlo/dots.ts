import { einsumOf } from '../einsum';
import type { DotInfo, ValueType } from '../types';
import type { HloComputation, HloInstruction } from './ast';
import type { LineMap } from './line-map';

function dimsOf(t: ValueType | undefined): readonly number[] | undefined {
  return t && 'dims' in t ? t.dims : undefined;
}

/**
 * Every `dot` of one computation (fused or not), decoded with its operand shapes; `lookup` finds an
 * instruction of `scope` by name.
 */
export function collectDots(lookup: ScopeLookup, scope: HloComputation, lines: LineMap, out: DotInfo[]): void {
  for (const ins of scope.instructions) {
    if (ins.opcode !== 'dot' || !ins.attrs?.dot) continue;
    const [l, r] = ins.operands;
    const lhs = dimsOf(l === undefined ? undefined : lookup.get(l)?.type) ?? [];
    const rhs = dimsOf(r === undefined ? undefined : lookup.get(r)?.type) ?? [];
    const d = ins.attrs?.dot;
    out.push({
      name: ins.name, scope: scope.name, line: lines.lineAt(ins.from), from: ins.from, to: ins.to, lhs, rhs,
      lhsBatch: d.lhsBatch, rhsBatch: d.rhsBatch, lhsContracting: d.lhsContracting, rhsContracting: d.rhsContracting,
      einsum: einsumOf(lhs.length, rhs.length, d),
    });
  }
}

/** Instructions of one computation by name. */
export interface ScopeLookup {
  get(name: string): HloInstruction | undefined;
}
