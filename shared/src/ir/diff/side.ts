import { DocumentKind } from '../../model/document';
import { indexHlo, parseHlo } from '../hlo/index';
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
 * spills) and one more streamed parse for operand names.
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
  readonly lines: number[] = [];
  /** Computation id of each node; `scopes` names them. */
  readonly comp: number[] = [];
  readonly scopes: { readonly name: string; readonly line: number; readonly isEntry: boolean; root: number; fusion: number }[] = [];
  /** Operands as named, by node; -1 for a name the computation does not define. */
  readonly rawOperands: number[][] = [];
  /** Operands seen through fusion boundaries (see the class comment). */
  readonly operands: number[][] = [];
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

  constructor(text: string, kind: DocumentKind = DocumentKind.hloOpt) {
    this.analysis = indexHlo(text, kind);
    const keys = this.analysis.index.keys;
    const lineMap = new LineMap(text);
    const pending: (readonly string[])[] = [];
    let open: HloComputation | undefined;
    let scopeId = -1;
    const add = (ins: HloInstruction, scope: HloComputation) => {
      if (open !== scope) {
        open = scope;
        scopeId = this.scopes.length;
        this.scopes.push({ name: scope.name, line: lineMap.lineAt(scope.from), isEntry: scope.isEntry, root: NONE, fusion: NONE });
        this.byScope.push(new Map());
      }
      const i = this.name.length;
      this.name.push(ins.name);
      this.opcode.push(ins.opcode);
      this.type.push(formatType(ins.type));
      this.number.push(ins.number);
      this.lines.push(lineMap.lineAt(ins.from));
      this.comp.push(scopeId);
      // `ins` is one record rewritten for the next instruction: keep copies only.
      pending.push(ins.operands.slice());
      this.fusionKind.push(ins.attrs?.fusionKind);
      this.target.push(ins.attrs?.customCallTarget);
      this.calls.push(ins.opcode === 'fusion' ? -1 : NONE);
      (this.byScope[scopeId] as Map<string, number>).set(ins.name, i);
      const s = this.scopes[scopeId];
      if (s && (ins.isRoot || s.root === NONE)) s.root = i;
      if (ins.opcode === 'fusion') this.callsName.set(i, ins.attrs?.calls?.[0] ?? '');
    };
    parseHlo(text, {
      instruction: add,
      computation: (c) => {
        // The proto form comes whole, with no instruction handed over before.
        for (const ins of c.instructions) add(ins, c);
        open = undefined;
      },
      module: () => undefined,
    });
    this.count = this.name.length;
    this.misaligned = keys.length !== this.count || keys.some((k, i) => k.name !== this.name[i]);
    this.keys = this.misaligned ? [] : keys;
    this.link(pending);
  }

  /** Fusion node → the name of the computation it calls, until `link` resolves it. */
  private readonly callsName = new Map<number, string>();

  private link(pending: readonly (readonly string[])[]): void {
    const scopeByName = new Map<string, number>();
    this.scopes.forEach((s, id) => {
      if (!scopeByName.has(s.name)) scopeByName.set(s.name, id);
    });
    for (const [node, callee] of this.callsName) {
      const id = scopeByName.get(callee);
      this.calls[node] = id ?? NONE;
      const s = id === undefined ? undefined : this.scopes[id];
      if (s && s.fusion === NONE) s.fusion = node;
    }
    for (let i = 0; i < this.count; i++) {
      const names = this.byScope[this.comp[i] as number] as Map<string, number>;
      this.rawOperands.push((pending[i] as readonly string[]).map((n) => names.get(n) ?? NONE));
    }
    for (let i = 0; i < this.count; i++) {
      this.operands.push((this.rawOperands[i] as number[]).map((o) => this.resolve(o)));
      const fused = this.scopes[this.comp[i] as number]?.fusion !== NONE;
      const applied = this.keys[i]?.applied === true;
      this.matchable.push(this.opcode[i] !== 'fusion' && !(fused && this.opcode[i] === 'parameter') && !applied);
      this.kernel.push(this.outerFusion(i));
    }
  }

  /** The node an operand stands for once fusion boundaries are seen through. */
  resolve(node: number): number {
    let at = node;
    for (let step = 0; step < RESOLVE_STEPS && at !== NONE; step++) {
      const op = this.opcode[at];
      const scope = this.scopes[this.comp[at] as number];
      if (op === 'parameter' && scope && scope.fusion !== NONE) {
        at = this.rawOperands[scope.fusion]?.[this.number[at] as number] ?? NONE;
      } else if (op === 'fusion' && (this.calls[at] as number) >= 0) {
        at = this.scopes[this.calls[at] as number]?.root ?? NONE;
      } else if (op === 'get-tuple-element') {
        const from = this.resolveShallow(this.rawOperands[at]?.[0] ?? NONE);
        if (from === NONE || this.opcode[from] !== 'tuple') return at;
        at = this.rawOperands[from]?.[this.number[at] as number] ?? NONE;
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
    for (let id = 0; id < this.scopes.length; id++) {
      if (this.scopes[id]?.name !== scope) continue;
      const n = this.byScope[id]?.get(name);
      if (n !== undefined) return n;
    }
    return NONE;
  }

  /** The node holding what a kernel wrote: a fusion's fused root (its element `index` for a tuple root), else the node. */
  content(node: number, index?: readonly number[]): number {
    let at = this.resolveShallow(node);
    if (index && index.length > 0 && at !== NONE && this.opcode[at] === 'tuple') at = this.resolve(this.rawOperands[at]?.[index[0] as number] ?? NONE);
    return at;
  }

  line(node: number): number {
    return this.lines[node] ?? 0;
  }

  scopeName(node: number): string {
    return this.scopes[this.comp[node] as number]?.name ?? '';
  }
}
