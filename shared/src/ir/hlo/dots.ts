import { einsumOf } from '../einsum';
import type { DotInfo, ValueType } from '../types';
import type { HloComputation } from './ast';
import type { ModuleGraph } from './graph';
import type { LineMap } from './line-map';

function dimsOf(t: ValueType | undefined): readonly number[] | undefined {
  return t && 'dims' in t ? t.dims : undefined;
}

/** Every `dot` of one computation (fused or not), decoded with its operand shapes. */
export function collectDots(graph: ModuleGraph, scope: HloComputation, lines: LineMap, out: DotInfo[]): void {
  for (const ins of scope.instructions) {
    if (ins.opcode !== 'dot' || !ins.attrs?.dot) continue;
    const [l, r] = ins.operands;
    const lhs = dimsOf(l === undefined ? undefined : graph.lookup(scope, l)?.type) ?? [];
    const rhs = dimsOf(r === undefined ? undefined : graph.lookup(scope, r)?.type) ?? [];
    const d = ins.attrs?.dot;
    out.push({
      name: ins.name, scope: scope.name, line: lines.lineAt(ins.from), from: ins.from, to: ins.to, lhs, rhs,
      lhsBatch: d.lhsBatch, rhsBatch: d.rhsBatch, lhsContracting: d.lhsContracting, rhsContracting: d.rhsContracting,
      einsum: einsumOf(lhs.length, rhs.length, d),
    });
  }
}
