import type { DotInfo, ValueType } from '../types';
import type { HloComputation, HloDotDims } from './ast';
import type { ModuleGraph } from './graph';
import type { LineMap } from './line-map';

const BATCH_LETTERS = 'bcdefgh';
const OTHER_LETTERS = 'ijklmnopqrstuvwxyza';
const SPARE_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Einsum-like string of a dot_general, in XLA's output order: batch dims, then the lhs free
 * dims, then the rhs free dims. Batch dims take `b c d…`; the other lhs dims take `i j k…` in
 * order; a contracting rhs dim reuses its lhs partner's letter and each free rhs dim takes the
 * next letter. `contracting_dims = [1] x [0]` on 16x32 · 32x32 gives `ij,jk->ik`; with a batch
 * dim `bij,bjk->bik`. Dims outside the ranks are ignored rather than trusted.
 */
export function dotEinsum(lhsRank: number, rhsRank: number, d: HloDotDims): string {
  const spare = [...SPARE_LETTERS];
  const take = (pool: string[]) => pool.shift() ?? spare.shift() ?? '?';
  const batch = [...BATCH_LETTERS];
  const other = [...OTHER_LETTERS];
  const lhs: string[] = [];
  const rhs: string[] = new Array<string>(rhsRank).fill('');
  const lhsFree: string[] = [];
  for (let i = 0; i < lhsRank; i++) {
    const b = d.lhsBatch.indexOf(i);
    const c = d.lhsContracting.indexOf(i);
    const letter = b >= 0 ? take(batch) : take(other);
    lhs.push(letter);
    if (b >= 0 && (d.rhsBatch[b] ?? -1) < rhsRank && (d.rhsBatch[b] ?? -1) >= 0) rhs[d.rhsBatch[b] ?? 0] = letter;
    else if (c >= 0 && (d.rhsContracting[c] ?? -1) < rhsRank && (d.rhsContracting[c] ?? -1) >= 0) rhs[d.rhsContracting[c] ?? 0] = letter;
    if (b < 0 && c < 0) lhsFree.push(letter);
  }
  const rhsFree: string[] = [];
  for (let i = 0; i < rhsRank; i++) {
    if (rhs[i]) continue;
    rhs[i] = take(other);
    rhsFree.push(rhs[i] ?? '');
  }
  const batchOut = d.lhsBatch.filter((i) => i >= 0 && i < lhsRank).map((i) => lhs[i] ?? '');
  return `${lhs.join('')},${rhs.join('')}->${[...batchOut, ...lhsFree, ...rhsFree].join('')}`;
}

function dimsOf(t: ValueType | undefined): readonly number[] | undefined {
  return t && 'dims' in t ? t.dims : undefined;
}

/** Every `dot` of a module, fused or not, decoded with its operand shapes. */
export function collectDots(graph: ModuleGraph, lines: LineMap, out: DotInfo[]): void {
  for (const scope of graph.module.computations) collectIn(graph, scope, lines, out);
}

function collectIn(graph: ModuleGraph, scope: HloComputation, lines: LineMap, out: DotInfo[]): void {
  for (const ins of scope.instructions) {
    if (ins.opcode !== 'dot' || !ins.dot) continue;
    const [l, r] = ins.operands;
    const lhs = dimsOf(l === undefined ? undefined : graph.lookup(scope, l)?.type) ?? [];
    const rhs = dimsOf(r === undefined ? undefined : graph.lookup(scope, r)?.type) ?? [];
    const d = ins.dot;
    out.push({
      name: ins.name, scope: scope.name, line: lines.lineAt(ins.from), from: ins.from, to: ins.to, lhs, rhs,
      lhsBatch: d.lhsBatch, rhsBatch: d.rhsBatch, lhsContracting: d.lhsContracting, rhsContracting: d.rhsContracting,
      einsum: dotEinsum(lhs.length, rhs.length, d),
    });
  }
}
