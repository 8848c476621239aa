import type { Diagnostic, KernelInfo, SourceRef, SpillCandidate } from '../types';

/** `-1` in a node column: no node, no computation, no word. */
export const NONE = -1;

/** One computation of a diff graph: its first line, and its root and calling fusion as node ids. */
export interface DiffScope {
  readonly name: string;
  readonly line: number;
  readonly isEntry: boolean;
  root: number;
  /** The fusion node that calls it, else -1. */
  fusion: number;
}

/** What the diff keeps of one module's index besides its graph: sizes, custom calls, spill candidates, diagnostics. */
export interface DiffModuleInfo {
  readonly bytes: number;
  readonly lines: number;
  readonly fusions: number;
  readonly kernels: readonly KernelInfo[];
  readonly spills: readonly SpillCandidate[];
  /** Errors and warnings of the parse, the first few only. */
  readonly diagnostics: readonly Diagnostic[];
  /** Set when the index's keys could not be lined up with the parse (then op_names and sources are not used). */
  readonly misaligned: boolean;
}

/**
 * Strings as one text and where each ends: a thread copies one string far faster than a list of
 * many (the 169,000 names of a 25 MB dump).
 */
export interface PackedStrings {
  readonly text: string;
  readonly ends: Int32Array;
}

/** Computations as columns (see `DiffScope`). */
export interface DiffScopeColumns {
  readonly names: PackedStrings;
  readonly lines: Int32Array;
  readonly isEntry: Uint8Array;
  readonly root: Int32Array;
  readonly fusion: Int32Array;
}

/**
 * One module's flat dataflow graph (see `DiffGraph`) as plain data: a column per node in typed
 * arrays, the strings it repeats (opcodes, types, fusion kinds, custom-call targets) once in
 * `words`, sources once each in `sources`. A thread builds it from a text and hands it to another
 * as a `PostedGraph`, so only a few strings, words, sources and the module's short lists are copied.
 */
export interface DiffGraphData {
  readonly count: number;
  readonly names: readonly string[];
  readonly words: readonly string[];
  /** Word of each node's opcode. */
  readonly opcode: Int32Array;
  /** Word of each node's type, layout left out. */
  readonly type: Int32Array;
  /** Word of a fusion's kind, a custom call's target; -1 when it has none. */
  readonly fusionKind: Int32Array;
  readonly target: Int32Array;
  /** `parameter(N)`'s N, `get-tuple-element`'s index, else -1. */
  readonly number: Float64Array;
  /** 1-based line of each node. */
  readonly lines: Int32Array;
  /** Computation id of each node (an index of `scopes`). */
  readonly comp: Int32Array;
  readonly scopes: DiffScopeColumns;
  /** Node `i`'s operands are at `[opFrom[i], opFrom[i + 1])` of `rawOperands` and `operands`. */
  readonly opFrom: Int32Array;
  /** Operands as named; -1 for a name the computation does not define. */
  readonly rawOperands: Int32Array;
  /** Operands seen through fusion boundaries (see `DiffGraph`). */
  readonly operands: Int32Array;
  /** The computation a fusion calls, else -1. */
  readonly calls: Int32Array;
  /** Index of each node's op_name and source position in `sources`; -1 when not used (misaligned). */
  readonly source: Int32Array;
  readonly sources: readonly SourceRef[];
  /** 1 for the ops the diff matches: not fusion instructions, fused parameters or reducers' ops. */
  readonly matchable: Uint8Array;
  /** The kernel each node runs in: its outermost fusion, else itself. */
  readonly kernel: Int32Array;
  readonly module: DiffModuleInfo;
}

/** A graph as one thread posts it to another: its names packed into one string (see `PackedStrings`). */
export type PostedGraph = Omit<DiffGraphData, 'names'> & { readonly names: PackedStrings };

/** A graph to post, its names packed. */
export function postedGraph(g: DiffGraphData): PostedGraph {
  return { ...g, names: packStrings(g.names) };
}

/** A posted graph, its names unpacked. */
export function receivedGraph(p: PostedGraph): DiffGraphData {
  return { ...p, names: unpackStrings(p.names) };
}

/** The buffers of a posted graph's columns, to transfer with it. */
export function graphBuffers(g: PostedGraph): ArrayBuffer[] {
  const s = g.scopes;
  const columns = [
    g.names.ends, g.opcode, g.type, g.fusionKind, g.target, g.number, g.lines, g.comp, g.opFrom, g.rawOperands, g.operands, g.calls, g.source, g.matchable, g.kernel,
    s.names.ends, s.lines, s.isEntry, s.root, s.fusion,
  ];
  return [...new Set(columns.map((c) => c.buffer as ArrayBuffer))];
}

export function packStrings(list: readonly string[]): PackedStrings {
  const ends = new Int32Array(list.length);
  let at = 0;
  for (let i = 0; i < list.length; i++) {
    at += (list[i] as string).length;
    ends[i] = at;
  }
  return { text: list.join(''), ends };
}

export function unpackStrings(p: PackedStrings): string[] {
  const out = new Array<string>(p.ends.length);
  let from = 0;
  for (let i = 0; i < p.ends.length; i++) {
    const to = p.ends[i] as number;
    out[i] = p.text.slice(from, to);
    from = to;
  }
  return out;
}

/** Computations as columns, to pack into a graph's data. */
export function scopeColumns(scopes: readonly DiffScope[]): DiffScopeColumns {
  return {
    names: packStrings(scopes.map((s) => s.name)), lines: Int32Array.from(scopes, (s) => s.line), isEntry: Uint8Array.from(scopes, (s) => (s.isEntry ? 1 : 0)),
    root: Int32Array.from(scopes, (s) => s.root), fusion: Int32Array.from(scopes, (s) => s.fusion),
  };
}

/** Computations from their columns. */
export function scopesOf(c: DiffScopeColumns): DiffScope[] {
  return unpackStrings(c.names).map((name, i) => ({ name, line: c.lines[i] as number, isEntry: c.isEntry[i] === 1, root: c.root[i] as number, fusion: c.fusion[i] as number }));
}
