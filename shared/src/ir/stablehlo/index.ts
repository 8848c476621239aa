import { DocumentKind } from '../../model/document';
import type { MlirArgument, MlirOperation } from '../mlir/ast';
import { LineIndex } from '../mlir/lines';
import { LocResolver } from '../mlir/locations';
import { parseMlir } from '../mlir/parser';
import { isArrayType, parseMlirType } from '../mlir/types';
import { arrayBytes, valueBytes } from '../shape';
import type { Analysis, CrossLayerKey, Diagnostic, DotInfo, OutlineEntry, ValueInfo } from '../types';
import { checkDotAttribute, dotInfo } from './dot';

export { parseMlir as parseStablehlo } from '../mlir/parser';
export { checkDotAttribute, dotDimensions } from './dot';

/** Ops whose regions are applied per element (reducers, comparators, combiners), by name after the dialect. */
const APPLIES_REGIONS = new Set(['reduce', 'reduce_window', 'sort', 'scatter', 'select_and_scatter', 'all_reduce', 'reduce_scatter', 'map']);

/** Ops that only structure the text; they get no cross-layer key. */
const STRUCTURAL = new Set(['module', 'builtin.module', 'func.func', 'func', 'return', 'func.return', 'stablehlo.return', 'mhlo.return']);

/**
 * Parses and indexes StableHLO (or any MLIR) text: outline of modules, functions and regions;
 * every value with its type and bytes; decoded dot_general/dot ops; and a cross-layer key per op
 * with its name stack and file/line from `loc(…)`. An op of a private function called from one
 * place gets its call's name stack in front of its own, as XLA records it once the call is inlined
 * (`jit(f)/while/body/closed_call` + `checkpoint/dot_general`). Ops in reducer and comparator
 * regions are marked `applied`. Never throws.
 */
export function indexStablehlo(text: string): Analysis {
  const lines = new LineIndex(text);
  const parsed = parseMlir(text, lines);
  const ix = new Indexer(lines);
  const outline: OutlineEntry[] = [];
  for (const chunk of parsed.ast.chunks) {
    ix.locs = new LocResolver(text, chunk);
    const first = ix.keys.length;
    for (const op of chunk.ops) ix.top(op, outline);
    prefixCallees(ix.keys, first, ix.callees);
    ix.callees.clear();
  }
  return {
    index: { kind: DocumentKind.stablehlo, bytes: text.length, lines: lines.count, outline, values: ix.values, dots: ix.dots, fusions: [], spills: [], keys: ix.keys },
    diagnostics: ix.problems.length ? [...parsed.diagnostics, ...ix.problems] : parsed.diagnostics,
  };
}

/** Walks operations once, collecting values, dots and keys. */
class Indexer {
  readonly values: ValueInfo[] = [];
  readonly dots: DotInfo[] = [];
  readonly keys: CrossLayerKey[] = [];
  /** Attribute grammar problems the generic parser lets through. */
  readonly problems: Diagnostic[] = [];
  locs: LocResolver | undefined;
  /** Call ops' keys by position in `keys`, with the function each calls. */
  readonly callees = new Map<number, string>();
  private types = new Map<string, string>();
  /** Bytes per type text: real dumps repeat a few hundred types over many thousand values. */
  private readonly bytes = new Map<string, number>();

  constructor(private readonly lines: LineIndex) {}

  /** A top-level op: a module (with functions inside), a function, or a loose op. */
  top(op: MlirOperation, outline: OutlineEntry[]): void {
    this.check(op);
    if (op.name === 'module' || op.name === 'builtin.module') {
      const children: OutlineEntry[] = [];
      let count = 0;
      for (const r of op.regions) for (const b of r.blocks) for (const inner of b.ops) {
        count++;
        this.top(inner, children);
      }
      outline.push(this.entry(op, op.symbol ?? 'module', 'module', count, children));
      return;
    }
    if (op.name === 'func.func' || op.name === 'func') {
      outline.push(this.func(op));
      return;
    }
    // Loose top-level ops (`sdy.mesh @mesh = …`, `ml_program.global`, test ops) are listed when
    // they name something or hold regions.
    const scope = op.symbol ?? '';
    const children: OutlineEntry[] = [];
    this.op(op, scope, children, false);
    if (op.regions.length > 0 || op.symbol !== undefined) {
      outline.push(this.entry(op, op.symbol ?? op.results[0]?.name ?? op.name, 'region', countOps(op), children));
    }
  }

  private func(op: MlirOperation): OutlineEntry {
    const scope = op.symbol ?? '';
    this.types = new Map();
    for (const a of op.args) this.value(a, scope, a.type);
    const children: OutlineEntry[] = [];
    let count = 0;
    for (const r of op.regions) for (const b of r.blocks) {
      for (const a of b.args) this.value(a, scope, a.type);
      for (const inner of b.ops) {
        count++;
        this.op(inner, scope, children, false);
      }
    }
    return this.entry(op, scope || 'func', 'function', count, children);
  }

  /**
   * One op inside a function: its results, dot, key, and nested regions as outline children;
   * `applied` when it sits in a region another op applies per element.
   */
  private op(op: MlirOperation, scope: string, outline: OutlineEntry[], applied: boolean): void {
    this.check(op);
    const types = op.resultTypes;
    const sameCount = types.length === op.results.length;
    for (let i = 0; i < op.results.length; i++) {
      const r = op.results[i];
      if (r) this.value(r, scope, (sameCount ? types[i] : types[Math.min(i, types.length - 1)]) ?? '', op.line);
    }
    // `stablehlo.while(%iterArg = %a, …) : T1, …`: iteration arguments take the result types in order
    op.args.forEach((a, i) => this.value(a, scope, a.type || (op.args.length === op.resultTypes.length ? (op.resultTypes[i] ?? '') : ''), op.line));
    this.dot(op, scope);
    if (!STRUCTURAL.has(op.name)) {
      const name = op.results.length === 1 ? (op.results[0]?.name ?? '') : op.results.map((r) => r.name).join(',') || `${op.name}@${op.line}`;
      const key: CrossLayerKey = { from: op.from, to: op.to, name, op: op.name, scope, line: op.line, source: this.locs?.resolve(op.loc) ?? {} };
      if (isCall(op.name) && op.symbol !== undefined) this.callees.set(this.keys.length, op.symbol);
      this.keys.push(applied ? { ...key, applied: true } : key);
    }
    const regionsApplied = applied || APPLIES_REGIONS.has(op.name.slice(op.name.indexOf('.') + 1));
    op.regions.forEach((region, k) => {
      const children: OutlineEntry[] = [];
      let count = 0;
      for (const b of region.blocks) {
        for (const a of b.args) this.value(a, scope, a.type);
        for (const nested of b.ops) {
          count++;
          this.op(nested, scope, children, regionsApplied);
        }
      }
      const name = `${op.results[0]?.name ?? op.name} ${op.name.slice(op.name.indexOf('.') + 1)}${op.regions.length > 1 ? ` #${k}` : ''}`;
      if (count > 0) outline.push({ from: region.from, to: region.to, name, kind: 'region', lineFrom: this.lines.lineOf(region.from), lineTo: this.lines.lineOf(region.to), opCount: count, children: children.length ? children : undefined });
    });
  }

  private check(op: MlirOperation): void {
    for (const a of op.attributes) {
      if (!a.value.startsWith('#')) continue;
      const problem = checkDotAttribute(a.value, a.to - a.value.length);
      if (problem) this.problems.push(problem);
    }
  }

  private dot(op: MlirOperation, scope: string): void {
    if (!op.name.endsWith('.dot_general') && !op.name.endsWith('.dot')) return;
    const lhsType = op.operandTypes[0] ?? this.types.get(op.operands[0]?.name ?? '') ?? '';
    const rhsType = op.operandTypes[1] ?? this.types.get(op.operands[1]?.name ?? '') ?? '';
    const lhs = parseMlirType(lhsType);
    const rhs = parseMlirType(rhsType);
    const info = dotInfo(op, scope, isArrayType(lhs) ? lhs.dims : [], isArrayType(rhs) ? rhs.dims : []);
    if (info) this.dots.push(info);
  }

  private value(v: { name: string; from: number; to: number } | MlirArgument, scope: string, type: string, line = this.lines.lineOf(v.from)): void {
    this.types.set(v.name, type);
    let bytes = this.bytes.get(type);
    if (bytes === undefined) {
      const parsed = parseMlirType(type);
      bytes = parsed === undefined ? 0 : isArrayType(parsed) ? arrayBytes(parsed.dtype, parsed.dims) : valueBytes(parsed);
      this.bytes.set(type, bytes);
    }
    this.values.push({ from: v.from, to: v.to, name: v.name, scope, line, type, bytes });
  }

  private entry(op: MlirOperation, name: string, kind: OutlineEntry['kind'], opCount: number, children: OutlineEntry[]): OutlineEntry {
    return { from: op.from, to: op.to, name, kind, lineFrom: op.line, lineTo: this.lines.lineOf(Math.max(op.from, op.to - 1)), opCount, children: children.length ? children : undefined };
  }
}

/** `func.call @f(…)`, `call @f(…)`. */
function isCall(name: string): boolean {
  return name === 'func.call' || name === 'call';
}

/**
 * Puts in front of each op of a called function the name stack of the call that reaches it (the
 * first call, for a function called from several places; calls into calls compose), for the keys
 * of one module from `first` on. Ops without a name stack keep none.
 */
function prefixCallees(keys: CrossLayerKey[], first: number, callees: ReadonlyMap<number, string>): void {
  const callOf = new Map<string, number>();
  for (const [at, callee] of callees) if (!callOf.has(callee)) callOf.set(callee, at);
  const prefixes = new Map<string, string | null>();
  const prefixOf = (scope: string, seen: Set<string>): string | null => {
    const known = prefixes.get(scope);
    if (known !== undefined) return known;
    const at = callOf.get(scope);
    const call = at === undefined ? undefined : keys[at];
    if (!call?.source.opName || seen.has(scope)) return null;
    seen.add(scope);
    const outer = prefixOf(call.scope, seen);
    const prefix = outer === null ? call.source.opName : joinStack(outer, call.source.opName);
    prefixes.set(scope, prefix);
    return prefix;
  };
  // Resolved before any key is rewritten, so each call's own name stack is read as printed.
  for (const callee of callOf.keys()) prefixOf(callee, new Set());
  for (let i = first; i < keys.length; i++) {
    const k = keys[i] as CrossLayerKey;
    const prefix = prefixes.get(k.scope);
    if (prefix && k.source.opName !== undefined) keys[i] = { ...k, source: { ...k.source, opName: joinStack(prefix, k.source.opName) } };
  }
}

/** `a/b` + `c` → `a/b/c`. */
function joinStack(outer: string, inner: string): string {
  return inner ? `${outer}/${inner}` : outer;
}

function countOps(op: MlirOperation): number {
  let n = 0;
  for (const r of op.regions) for (const b of r.blocks) n += b.ops.length;
  return n;
}
