import { DocumentKind } from '../../model/document';
import type { OpTime } from '../gate';
import type { Diagnostic } from '../types';
import { diffFusions } from './fusions';
import { diffOpTimes } from './op-time';
import { matchGraphs, prepareA, type Matching, type PreparedA } from './match';
import { DiffGraph } from './side';
import { readDiffGraph } from './side-build';
import { diffSpills } from './spills';
import { MatchTier, type ComputationPair, type DiffCustomCall, type DiffInstruction, type DiffPair, type DiffSide, type ModuleDiff, type SpillChange } from './types';

/**
 * Which HLO each text is: before optimization (`hlo`, e.g. a pass dump) or after (`hlo-opt`, the
 * default, with spill candidates); and, when each module has a trace, its op rows (the gate's
 * `OpTime`s): the diff then says each side's measured op time (none by default).
 */
export interface DiffOptions {
  readonly kindA?: DocumentKind;
  readonly kindB?: DocumentKind;
  readonly opTimes?: { readonly a?: readonly OpTime[]; readonly b?: readonly OpTime[] };
}

/**
 * The structural diff of two HLO texts, A (the base) and B: two captures, two uploads, or two pass
 * dumps of one module. Instructions are matched by what they compute (see `matchGraphs`), not by
 * name; fusions formed, split or gone, custom calls added or removed, spill candidates appearing
 * or disappearing with their bytes, and total traffic follow from the matching. Pure; never throws
 * on user input (what cannot be parsed is left out, and said in `diagnostics`); time and memory
 * linear in the two texts.
 */
export function diffModules(textA: string, textB: string, options: DiffOptions = {}): ModuleDiff {
  const a = new DiffGraph(readDiffGraph(textA, options.kindA ?? DocumentKind.hloOpt));
  const b = new DiffGraph(readDiffGraph(textB, options.kindB ?? DocumentKind.hloOpt));
  return diffGraphs(a, b, options);
}

/**
 * `diffModules` of two modules already read (`readDiffGraph`), in this thread or others; `prepared`
 * is what matching worked out from A alone (`prepareA`) while B was being read, if it was.
 */
export function diffGraphs(a: DiffGraph, b: DiffGraph, options: Pick<DiffOptions, 'opTimes'> = {}, prepared: PreparedA = prepareA(a)): ModuleDiff {
  const m = matchGraphs(a, b, prepared);
  const pairs: DiffPair[] = [];
  let changed = 0;
  for (let i = 0; i < a.count; i++) {
    const j = m.aToB[i] as number;
    if (j < 0) continue;
    const tier = m.tierOfA[i] ?? MatchTier.loose;
    if (tier !== MatchTier.exact) changed++;
    pairs.push({ a: place(a, i), b: place(b, j), opcode: a.opcode[i] as string, tier });
  }
  const removed = unmatched(a, m.aToB);
  const added = unmatched(b, m.bToA);
  const fusions = diffFusions(a, b, m);
  const customCalls = { added: lonelyCalls(b, m.bToA), removed: lonelyCalls(a, m.aToB) };
  const spills = diffSpills(a, b, m);
  const sideA = side(a);
  const sideB = side(b);
  const opTime = options.opTimes ? diffOpTimes(a, b, options.opTimes) : undefined;
  const count = (k: string) => fusions.changes.filter((c) => c.change === k).length;
  const spillCount = (k: SpillChange['change']) => spills.filter((s) => s.change === k).length;
  const spillBytes = (k: SpillChange['change']) => spills.filter((s) => s.change === k).reduce((n, s) => n + (s.a?.bytes ?? s.b?.bytes ?? 0), 0);
  const summary = {
    matched: pairs.length, changed, added: added.length, removed: removed.length,
    fusions: { formed: count('formed'), split: count('split'), gone: count('gone'), added: count('added'), kept: fusions.kept.length },
    customCalls: { added: customCalls.added.length, removed: customCalls.removed.length },
    spills: {
      appeared: spillCount('appeared'), disappeared: spillCount('disappeared'), kept: spillCount('kept'),
      bytesAppeared: spillBytes('appeared'), bytesDisappeared: spillBytes('disappeared'),
    },
    traffic: { a: sideA.traffic, b: sideB.traffic },
    identical: changed === 0 && added.length === 0 && removed.length === 0 && fusions.changes.length === 0 && spills.every((s) => s.change === 'kept' && s.a?.traffic === s.b?.traffic),
    ...(opTime ? { opTime: { a: opTime.a, b: opTime.b } } : {}),
  };
  return {
    a: sideA, b: sideB, summary, computations: pairComputations(a, b, m, fusions.keptNodes), pairs, removed, added,
    fusionsKept: fusions.kept, fusionChanges: fusions.changes, customCalls, spills, ...(opTime ? { opTime } : {}),
    diagnostics: { a: diagnosticsOf(a), b: diagnosticsOf(b) },
  };
}

function place(g: DiffGraph, i: number): { name: string; scope: string; line: number } {
  return { name: g.name[i] as string, scope: g.scopeName(i), line: g.line(i) };
}

function unmatched(g: DiffGraph, toOther: Int32Array): DiffInstruction[] {
  const out: DiffInstruction[] = [];
  for (let i = 0; i < g.count; i++) {
    if (!g.matchable[i] || (toOther[i] as number) >= 0) continue;
    const opName = g.source(i)?.opName;
    out.push({ ...place(g, i), opcode: g.opcode[i] as string, type: g.type[i] as string, ...(opName !== undefined ? { opName } : {}) });
  }
  return out;
}

/** Custom-call kernels of `g` with no counterpart, with the index's target, name and bytes. */
function lonelyCalls(g: DiffGraph, toOther: Int32Array): DiffCustomCall[] {
  const out: DiffCustomCall[] = [];
  for (const k of g.module.kernels) {
    const i = g.find(k.scope, k.name);
    if (i >= 0 && (toOther[i] as number) >= 0) continue;
    out.push({
      name: k.name, scope: k.scope, line: k.line, target: k.target, ...(k.kernelName !== undefined ? { kernelName: k.kernelName } : {}),
      inputBytes: k.inputBytes, outputBytes: k.outputBytes,
    });
  }
  return out;
}

/**
 * Computations paired: the entries with each other, the fused computations of kept fusions with
 * each other, then the rest by where most of their matched instructions went (greedy by votes);
 * each computation in at most one pair. In text order of B.
 */
function pairComputations(a: DiffGraph, b: DiffGraph, m: Matching, keptFusions: readonly [number, number][]): ComputationPair[] {
  const votes = new Map<number, number>();
  const width = a.scopes.length;
  for (let j = 0; j < b.count; j++) {
    const i = m.bToA[j] as number;
    if (i < 0) continue;
    const key = (b.comp[j] as number) * width + (a.comp[i] as number);
    votes.set(key, (votes.get(key) ?? 0) + 1);
  }
  const ranked = [...votes].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const out: { b: number; pair: ComputationPair }[] = [];
  const take = (cb: number, ca: number, matched: number) => {
    const sa = a.scopes[ca];
    const sb = b.scopes[cb];
    if (!sa || !sb || usedA.has(ca) || usedB.has(cb)) return;
    usedA.add(ca);
    usedB.add(cb);
    out.push({ b: cb, pair: { a: sa.name, b: sb.name, lineA: sa.line, lineB: sb.line, matched } });
  };
  const entryA = a.scopes.findIndex((s) => s.isEntry);
  const entryB = b.scopes.findIndex((s) => s.isEntry);
  if (entryA >= 0 && entryB >= 0) take(entryB, entryA, votes.get(entryB * width + entryA) ?? 0);
  for (const [fa, fb] of keptFusions) {
    const ca = a.calls[fa] as number;
    const cb = b.calls[fb] as number;
    if (ca >= 0 && cb >= 0) take(cb, ca, votes.get(cb * width + ca) ?? 0);
  }
  for (const [key, n] of ranked) take(Math.floor(key / width), key % width, n);
  return out.sort((x, y) => x.b - y.b).map((x) => x.pair);
}

function side(g: DiffGraph): DiffSide {
  const ix = g.module;
  return {
    bytes: ix.bytes, lines: ix.lines, instructions: g.matchable.filter(Boolean).length, fusions: ix.fusions,
    customCalls: ix.kernels.length, spills: ix.spills.length, traffic: ix.spills.reduce((n, s) => n + s.traffic, 0),
  };
}

function diagnosticsOf(g: DiffGraph): Diagnostic[] {
  const kept = [...g.module.diagnostics];
  if (g.misaligned) kept.push({ severity: 'warning', message: 'the index and the parse disagree on the instructions; op_names and source positions were not used to match', from: 0, to: 0 });
  return kept;
}
