import { DocumentKind } from '../../model/document';
import { indexHlo } from '../hlo/index';
import type { HloComputation, HloInstruction } from '../hlo/ast';
import { formatType } from '../hlo/spills';
import { LineMap } from '../hlo/line-map';
import type { Analysis, CrossLayerKey } from '../types';

/** How many steps `resolve` follows through fusion parameters, fusions and tuple elements. */
const RESOLVE_STEPS = 8;
const NONE = -1;

/**
 * One module (or every module of one text) as a flat dataflow graph for the diff: one node per
 * instruction, in text order, with each operand resolved through fusion boundaries, so that an op
 * has the same operands whether XLA fused it or not: a fused computation's `parameter(N)` is the
 * fusion's operand N, a fusion read as an operand is its fused root, and `get-tuple-element` of a
 * multi-output fusion is the root tuple's element. Built on the HLO index (sources, lines, fusions,
 * spills), which hands each instruction over as it is read.
 */
export class DiffGraph {
  readonly analysis: Analysis;
  readonly count: number;
  readonly name: string[] = [];
  readonly opcode: string[] = [];
  /** Type without layout. */
  readonly type: string[] = [];
  /** `parameter(N)`'s N, `get-tuple-element`'s index, else -1. */
  readonly number: number[] = [];
  /** 1-based line of each node. */
  readonly lines: Int32Array;
  /** Computation id of each node; `scopes` names them. */
  readonly comp: number[] = [];
  readonly scopes: { readonly name: string; readonly line: number; readonly isEntry: boolean; root: number; fusion: number }[] = [];
  /** Node `i`'s operands are at `[opFrom[i], opFrom[i + 1])` of `rawOperands` and `operands`. */
  readonly opFrom: Int32Array;
  /** Operands as named; -1 for a name the computation does not define. */
  readonly rawOperands: Int32Array;
  /** Operands seen through fusion boundaries (see the class comment). */
  readonly operands: Int32Array;
  /** The fused computation a fusion calls (computation id), else -1. */
  readonly calls: number[] = [];
  readonly fusionKind: (string | undefined)[] = [];
  readonly target: (string | undefined)[] = [];
  /** The instruction's cross-layer key: line, source, fusion, applied. */
  readonly keys: readonly CrossLayerKey[];
  /** Ops the diff matches: not fusion instructions, fused parameters or reducers' ops. */
  readonly matchable: boolean[] = [];
  /** The kernel each node runs in: its outermost fusion, else itself. */
  readonly kernel: number[] = [];
  /** Set when the index's keys could not be lined up with the parse (then op_names and sources are not used). */
  readonly misaligned: boolean;
  private readonly byScope: Map<string, number>[] = [];
  /** Computation ids by name (names repeat only across modules of one text). */
  private readonly scopeIds = new Map<string, number[]>();

  constructor(text: string, kind: DocumentKind = DocumentKind.hloOpt) {
    const lineMap = new LineMap(text);
    // Operands, all nodes' in one list (node i's from `starts[i]`), resolved as they are read:
    // XLA prints an operand before its users; a name not yet defined is looked up at the end.
    const raw: number[] = [];
    const later: { at: number; name: string }[] = [];
    const starts: number[] = [];
    let open: HloComputation | undefined;
    let scopeId = -1;
    let names = new Map<string, number>();
    const types = new Map<string, string>();
    const froms: number[] = [];
    const add = (ins: HloInstruction, scope: HloComputation) => {
      if (open !== scope) {
        open = scope;
        scopeId = this.scopes.length;
        this.scopes.push({ name: scope.name, line: lineMap.lineAt(scope.from), isEntry: scope.isEntry, root: NONE, fusion: NONE });
        names = new Map();
        this.byScope.push(names);
      }
      const i = this.name.length;
      this.name.push(ins.name);
      this.opcode.push(ins.opcode);
      // Types repeat: one layout-free text per printed type.
      let type = types.get(ins.typeText);
      if (type === undefined) {
        type = formatType(ins.type);
        types.set(ins.typeText, type);
      }
      this.type.push(type);
      this.number.push(ins.number);
      froms.push(ins.from);
      this.comp.push(scopeId);
      // `ins` is one record rewritten for the next instruction: keep copies only.
      starts.push(raw.length);
      for (const o of ins.operands) {
        const at = names.get(o);
        if (at === undefined) later.push({ at: raw.length, name: o });
        raw.push(at ?? NONE);
      }
      this.fusionKind.push(ins.attrs?.fusionKind);
      this.target.push(ins.attrs?.customCallTarget);
      this.calls.push(NONE);
      names.set(ins.name, i);
      const s = this.scopes[scopeId];
      if (s && (ins.isRoot || s.root === NONE)) s.root = i;
      if (ins.opcode === 'fusion') this.callsName.set(i, ins.attrs?.calls?.[0] ?? '');
    };
    this.analysis = indexHlo(text, kind, add);
    const keys = this.analysis.index.keys;
    this.count = this.name.length;
    starts.push(raw.length);
    this.misaligned = keys.length !== this.count || keys.some((k, i) => k.name !== this.name[i]);
    this.keys = this.misaligned ? [] : keys;
    // The index's keys carry each line; a text the two readings disagree on gets them looked up.
    this.lines = this.misaligned ? Int32Array.from(froms, (f) => lineMap.lineAt(f)) : Int32Array.from(keys, (k) => k.line);
    this.opFrom = Int32Array.from(starts);
    this.rawOperands = Int32Array.from(raw);
    this.operands = new Int32Array(raw.length);
    this.link(later);
  }

  /** Fusion node → the name of the computation it calls, until `link` resolves it. */
  private readonly callsName = new Map<number, string>();

  private link(later: readonly { readonly at: number; readonly name: string }[]): void {
    this.scopes.forEach((s, id) => {
      const same = this.scopeIds.get(s.name);
      if (same) same.push(id);
      else this.scopeIds.set(s.name, [id]);
    });
    for (const [node, callee] of this.callsName) {
      const id = this.scopeIds.get(callee)?.[0];
      this.calls[node] = id ?? NONE;
      const s = id === undefined ? undefined : this.scopes[id];
      if (s && s.fusion === NONE) s.fusion = node;
    }
    const from = this.opFrom;
    if (later.length > 0) {
      // Operands named before they were defined, in slot order: walk the nodes alongside.
      let node = 0;
      for (const { at, name } of later) {
        while ((from[node + 1] as number) <= at) node++;
        this.rawOperands[at] = this.byScope[this.comp[node] as number]?.get(name) ?? NONE;
      }
    }
    for (let i = 0; i < this.count; i++) {
      for (let k = from[i] as number; k < (from[i + 1] as number); k++) this.operands[k] = this.resolve(this.rawOperands[k] as number);
      const fused = this.scopes[this.comp[i] as number]?.fusion !== NONE;
      const applied = this.keys[i]?.applied === true;
      this.matchable.push(this.opcode[i] !== 'fusion' && !(fused && this.opcode[i] === 'parameter') && !applied);
      this.kernel.push(this.outerFusion(i));
    }
  }

  /** Operand `k` (0-based) of node `i` as named, or -1. */
  private rawOperand(i: number, k: number): number {
    const at = (this.opFrom[i] as number) + k;
    return k >= 0 && at < (this.opFrom[i + 1] as number) ? (this.rawOperands[at] as number) : NONE;
  }

  /** The node an operand stands for once fusion boundaries are seen through. */
  resolve(node: number): number {
    let at = node;
    for (let step = 0; step < RESOLVE_STEPS && at !== NONE; step++) {
      const op = this.opcode[at];
      const scope = this.scopes[this.comp[at] as number];
      if (op === 'parameter' && scope && scope.fusion !== NONE) {
        at = this.rawOperand(scope.fusion, this.number[at] as number);
      } else if (op === 'fusion' && (this.calls[at] as number) >= 0) {
        at = this.scopes[this.calls[at] as number]?.root ?? NONE;
      } else if (op === 'get-tuple-element') {
        const from = this.resolveShallow(this.rawOperand(at, 0));
        if (from === NONE || this.opcode[from] !== 'tuple') return at;
        at = this.rawOperand(from, this.number[at] as number);
      } else {
        return at;
      }
    }
    return at;
  }

  /** A fusion's root, else the node. */
  private resolveShallow(node: number): number {
    if (node !== NONE && this.opcode[node] === 'fusion' && (this.calls[node] as number) >= 0) return this.scopes[this.calls[node] as number]?.root ?? NONE;
    return node;
  }

  /** The outermost fusion whose fused computation (nested or not) holds `node`; `node` itself outside fusions. */
  private outerFusion(node: number): number {
    let at = node;
    for (let step = 0; step < RESOLVE_STEPS; step++) {
      const caller = this.scopes[this.comp[at] as number]?.fusion ?? NONE;
      if (caller === NONE) return at;
      at = caller;
    }
    return at;
  }

  /** The node `name` of computation `scope`, if any. */
  find(scope: string, name: string): number {
    for (const id of this.scopeIds.get(scope) ?? []) {
      const n = this.byScope[id]?.get(name);
      if (n !== undefined) return n;
    }
    return NONE;
  }

  /** The node holding what a kernel wrote: a fusion's fused root (its element `index` for a tuple root), else the node. */
  content(node: number, index?: readonly number[]): number {
    let at = this.resolveShallow(node);
    if (index && index.length > 0 && at !== NONE && this.opcode[at] === 'tuple') at = this.resolve(this.rawOperand(at, index[0] as number));
    return at;
  }

  line(node: number): number {
    return this.lines[node] ?? 0;
  }

  scopeName(node: number): string {
    return this.scopes[this.comp[node] as number]?.name ?? '';
  }
}
