import type { Matching } from './match';
import type { DiffGraph } from './side';
import { FusionChangeKind, type DiffKernel, type FusionChange } from './types';

/** Ops that fusions copy freely (constants, broadcasts, tuple plumbing): where they went says nothing of fusion. */
const FREE = new Set(['constant', 'parameter', 'broadcast', 'iota', 'tuple', 'get-tuple-element', 'bitcast']);

export interface FusionDiff {
  readonly kept: { readonly a: DiffKernel; readonly b: DiffKernel }[];
  /** The kept fusions' nodes, A's then B's. */
  readonly keptNodes: [number, number][];
  readonly changes: FusionChange[];
}

/**
 * Fusion changes from matched ops: for each fusion, the kernels of the other module that hold its
 * matched ops (a fusion there, or the op itself when unfused there). A fusion of B drawing on one
 * fusion of A that draws only on it is kept; on unfused ops or several fusions it was formed; a
 * fusion of A whose ops went to several kernels of B was split, and one whose ops are all unfused
 * or gone in B is gone.
 */
export function diffFusions(a: DiffGraph, b: DiffGraph, m: Matching): FusionDiff {
  const fromA = sources(b, a, m.bToA);
  const toB = sources(a, b, m.aToB);
  const kept: FusionDiff['kept'] = [];
  const keptNodes: [number, number][] = [];
  const changes: FusionChange[] = [];
  for (const [f, srcs] of fromA) {
    const only = srcs.length === 1 ? (srcs[0] as number) : -1;
    if (only >= 0 && a.opcode[only] === 'fusion' && sameSet(toB.get(only), [f])) {
      kept.push({ a: kernelOf(a, only), b: kernelOf(b, f) });
      keptNodes.push([only, f]);
    } else if (srcs.length === 0) {
      changes.push({ change: FusionChangeKind.added, a: [], b: [kernelOf(b, f)] });
    } else if (srcs.length > 1 || a.opcode[only] !== 'fusion') {
      changes.push({ change: FusionChangeKind.formed, a: srcs.map((k) => kernelOf(a, k)), b: [kernelOf(b, f)] });
    }
  }
  for (const [g, dsts] of toB) {
    const fused = dsts.filter((k) => b.opcode[k] === 'fusion');
    if (fused.length === 0) changes.push({ change: FusionChangeKind.gone, a: [kernelOf(a, g)], b: dsts.map((k) => kernelOf(b, k)) });
    else if (dsts.length > 1) changes.push({ change: FusionChangeKind.split, a: [kernelOf(a, g)], b: dsts.map((k) => kernelOf(b, k)) });
  }
  return { kept, keptNodes, changes };
}

/**
 * Fusion node of `g` → the kernels of `other` holding its matched ops, in text order. Ops that
 * fusions copy freely count only for a fusion that holds nothing else (`wrapped_broadcast`).
 */
function sources(g: DiffGraph, other: DiffGraph, toOther: Int32Array): Map<number, number[]> {
  const strong = new Map<number, Set<number>>();
  const weak = new Map<number, Set<number>>();
  const busy = new Set<number>();
  const holding = new Set<number>();
  for (let i = 0; i < g.count; i++) {
    if (g.opcode[i] !== 'fusion' || g.kernel[i] !== i) continue;
    strong.set(i, new Set());
    weak.set(i, new Set());
  }
  for (let i = 0; i < g.count; i++) {
    const k = g.kernel[i] as number;
    if (k === i || !g.matchable[i]) continue;
    holding.add(k);
    const free = FREE.has(g.opcode[i] as string);
    if (!free) busy.add(k);
    const j = toOther[i] as number;
    if (j >= 0) (free ? weak : strong).get(k)?.add(other.kernel[j] as number);
  }
  const sorted = new Map<number, number[]>();
  // A fusion holding no op of its own (a malformed one that calls itself) says nothing.
  for (const [k, s] of strong) if (holding.has(k)) sorted.set(k, [...(busy.has(k) ? s : (weak.get(k) as Set<number>))].sort((x, y) => x - y));
  return sorted;
}

function sameSet(xs: readonly number[] | undefined, ys: readonly number[]): boolean {
  return xs !== undefined && xs.length === ys.length && xs.every((x, i) => x === ys[i]);
}

/** A kernel as a fusion change names it. */
export function kernelOf(g: DiffGraph, node: number): DiffKernel {
  const kind = g.fusionKind[node];
  return { name: g.name[node] as string, scope: g.scopeName(node), line: g.line(node), opcode: g.opcode[node] as string, ...(kind !== undefined ? { kind } : {}) };
}
