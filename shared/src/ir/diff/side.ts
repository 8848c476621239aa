import type { SourceRef } from '../types';
import { NONE, scopesOf, type DiffGraphData, type DiffModuleInfo, type DiffScope } from './graph-data';

/** How many steps `resolve` follows through fusion parameters, fusions and tuple elements. */
const RESOLVE_STEPS = 8;

/**
 * One module (or every module of one text) as a flat dataflow graph for the diff: one node per
 * instruction, in text order, with each operand resolved through fusion boundaries, so that an op
 * has the same operands whether XLA fused it or not: a fused computation's `parameter(N)` is the
 * fusion's operand N, a fusion read as an operand is its fused root, and `get-tuple-element` of a
 * multi-output fusion is the root tuple's element. Made from the data `readDiffGraph` builds from a
 * text, in this thread or another.
 */
export class DiffGraph {
  readonly count: number;
  readonly name: readonly string[];
  readonly opcode: readonly string[];
  /** Type without layout. */
  readonly type: readonly string[];
  /** `parameter(N)`'s N, `get-tuple-element`'s index, else -1. */
  readonly number: Float64Array;
  /** 1-based line of each node. */
  readonly lines: Int32Array;
  /** Computation id of each node; `scopes` names them. */
  readonly comp: Int32Array;
  readonly scopes: readonly DiffScope[];
  /** Node `i`'s operands are at `[opFrom[i], opFrom[i + 1])` of `rawOperands` and `operands`. */
  readonly opFrom: Int32Array;
  /** Operands as named; -1 for a name the computation does not define. */
  readonly rawOperands: Int32Array;
  /** Operands seen through fusion boundaries (see the class comment). */
  readonly operands: Int32Array;
  /** The fused computation a fusion calls (computation id), else -1. */
  readonly calls: Int32Array;
  readonly fusionKind: readonly (string | undefined)[];
  readonly target: readonly (string | undefined)[];
  /** Ops the diff matches (1): not fusion instructions, fused parameters or reducers' ops. */
  readonly matchable: Uint8Array;
  /** The kernel each node runs in: its outermost fusion, else itself. */
  readonly kernel: Int32Array;
  /** Sizes, custom calls, spill candidates and diagnostics of the module. */
  readonly module: DiffModuleInfo;
  private readonly sourceOf: Int32Array;
  private readonly sources: readonly SourceRef[];
  /** Node ids by name, per computation, each made on the first `find` in it. */
  private readonly byScope: (Map<string, number> | undefined)[] = [];
  /** Where each computation's nodes start, and end (they are read one computation at a time); made on the first `find`. */
  private scopeNodes: Int32Array | undefined;
  /** Computation ids by name (names repeat only across modules of one text). */
  private readonly scopeIds = new Map<string, number[]>();

  constructor(d: DiffGraphData) {
    this.count = d.count;
    this.name = d.names;
    this.opcode = wordsOf(d.opcode, d.words, '');
    this.type = wordsOf(d.type, d.words, '');
    this.fusionKind = wordsOf(d.fusionKind, d.words, undefined);
    this.target = wordsOf(d.target, d.words, undefined);
    this.number = d.number;
    this.lines = d.lines;
    this.comp = d.comp;
    this.scopes = scopesOf(d.scopes);
    this.opFrom = d.opFrom;
    this.rawOperands = d.rawOperands;
    this.operands = d.operands;
    this.calls = d.calls;
    this.matchable = d.matchable;
    this.kernel = d.kernel;
    this.module = d.module;
    this.sourceOf = d.source;
    this.sources = d.sources;
    this.scopes.forEach((s, id) => {
      const same = this.scopeIds.get(s.name);
      if (same) same.push(id);
      else this.scopeIds.set(s.name, [id]);
    });
  }

  /** Set when the index's keys could not be lined up with the parse (then op_names and sources are not used). */
  get misaligned(): boolean {
    return this.module.misaligned;
  }

  /** The op_name and source position of node `i`; undefined when the index's keys were not used. */
  source(i: number): SourceRef | undefined {
    const s = this.sourceOf[i] ?? NONE;
    return s === NONE ? undefined : this.sources[s];
  }

  /** The node `name` of computation `scope`, if any. */
  find(scope: string, name: string): number {
    for (const id of this.scopeIds.get(scope) ?? []) {
      const n = this.namesOf(id).get(name);
      if (n !== undefined) return n;
    }
    return NONE;
  }

  /** Computation `id`'s nodes by name (a name defined twice: the later). */
  private namesOf(id: number): Map<string, number> {
    let names = this.byScope[id];
    if (names) return names;
    const at = (this.scopeNodes ??= scopeNodes(this.comp, this.scopes.length));
    names = new Map();
    for (let i = at[id] as number; i < (at[id + 1] as number); i++) names.set(this.name[i] as string, i);
    this.byScope[id] = names;
    return names;
  }

  /** The node an operand stands for once fusion boundaries are seen through. */
  resolve(node: number): number {
    return resolve(this, node);
  }

  /** The node holding what a kernel wrote: a fusion's fused root (its element `index` for a tuple root), else the node. */
  content(node: number, index?: readonly number[]): number {
    let at = resolveShallow(this, node);
    if (index && index.length > 0 && at !== NONE && this.opcode[at] === 'tuple') at = resolve(this, rawOperand(this, at, index[0] as number));
    return at;
  }

  line(node: number): number {
    return this.lines[node] ?? 0;
  }

  scopeName(node: number): string {
    return this.scopes[this.comp[node] as number]?.name ?? '';
  }
}

/** Each node's word, `none` for -1 (a plain loop: `Array.from` of a typed array walks an iterator, several times slower). */
function wordsOf<T extends string | undefined>(codes: Int32Array, words: readonly string[], none: T): (string | T)[] {
  const out = new Array<string | T>(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const w = codes[i] as number;
    out[i] = w === NONE ? none : (words[w] ?? none);
  }
  return out;
}

/**
 * Computation `id`'s nodes are `[at[id], at[id + 1])`: a computation's instructions are read one
 * after another, and each gets its id when its first one is read, so ids follow the nodes.
 */
function scopeNodes(comp: Int32Array, scopes: number): Int32Array {
  const at = new Int32Array(scopes + 1).fill(comp.length);
  for (let i = comp.length - 1; i >= 0; i--) at[comp[i] as number] = i;
  // A computation with no node of its own (none is made so) would start where the next does.
  for (let id = scopes - 1; id >= 0; id--) if ((at[id] as number) > (at[id + 1] as number)) at[id] = at[id + 1] as number;
  return at;
}

/** The columns `resolve` walks, as a graph being built has them before its operands are resolved. */
export interface Links {
  readonly opcode: readonly string[];
  readonly number: ArrayLike<number>;
  readonly comp: ArrayLike<number>;
  readonly scopes: readonly DiffScope[];
  readonly opFrom: ArrayLike<number>;
  readonly rawOperands: ArrayLike<number>;
  readonly calls: ArrayLike<number>;
}

/** Operand `k` (0-based) of node `i` as named, or -1. */
function rawOperand(g: Links, i: number, k: number): number {
  const at = (g.opFrom[i] as number) + k;
  return k >= 0 && at < (g.opFrom[i + 1] as number) ? (g.rawOperands[at] as number) : NONE;
}

/** The node an operand stands for once fusion boundaries are seen through (see `DiffGraph`). */
export function resolve(g: Links, node: number): number {
  let at = node;
  for (let step = 0; step < RESOLVE_STEPS && at !== NONE; step++) {
    const op = g.opcode[at];
    const scope = g.scopes[g.comp[at] as number];
    if (op === 'parameter' && scope && scope.fusion !== NONE) {
      at = rawOperand(g, scope.fusion, g.number[at] as number);
    } else if (op === 'fusion' && (g.calls[at] as number) >= 0) {
      at = g.scopes[g.calls[at] as number]?.root ?? NONE;
    } else if (op === 'get-tuple-element') {
      const from = resolveShallow(g, rawOperand(g, at, 0));
      if (from === NONE || g.opcode[from] !== 'tuple') return at;
      at = rawOperand(g, from, g.number[at] as number);
    } else {
      return at;
    }
  }
  return at;
}

/** A fusion's root, else the node. */
function resolveShallow(g: Links, node: number): number {
  if (node !== NONE && g.opcode[node] === 'fusion' && (g.calls[node] as number) >= 0) return g.scopes[g.calls[node] as number]?.root ?? NONE;
  return node;
}

/** The outermost fusion whose fused computation (nested or not) holds `node`; `node` itself outside fusions. */
export function outerFusion(g: Links, node: number): number {
  let at = node;
  for (let step = 0; step < RESOLVE_STEPS; step++) {
    const caller = g.scopes[g.comp[at] as number]?.fusion ?? NONE;
    if (caller === NONE) return at;
    at = caller;
  }
  return at;
}
