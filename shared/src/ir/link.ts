import { jaxprArrayType } from './jaxpr/index';
import { isArrayType, parseMlirType } from './mlir/types';
import type { Analysis, CrossLayerKey, LinkedOp, MappingRow, SourceRef } from './types';

/** HLO instructions that only name an input; they are not what an equation became. */
const SKIP_OPS = new Set(['parameter']);

/**
 * Joins the three layers of one program: one row per jaxpr equation, in text order, with the
 * StableHLO ops and HLO instructions (fused or not) that came from it. An op joins the equation
 * whose primitive is the last component of the op's name stack (`jit(mlp)/dot_general`), preferring
 * equal source file/line (and column where both print one; a mismatch rules a pair out), a longer
 * common name-stack suffix, and the same result shape and element kind. Equations that tie on all
 * of that (same primitive on one source line) share their ops out in program order.
 */
export function linkLayers(jaxpr: Analysis, stablehlo: Analysis, hlo: Analysis): MappingRow[] {
  const jaxprTypes = typesOf(jaxpr);
  const eqs = [...jaxpr.index.keys].sort((a, b) => a.from - b.from).map((k) => new Equation(k, shapeOf(jaxprTypes, k)));
  assign(eqs, stablehlo, (e) => e.stablehlo);
  assign(eqs, hlo, (e) => e.hlo);
  return eqs.map((e) => ({ equation: e.key.name, primitive: e.key.op, scope: e.key.scope, line: e.key.line, source: e.key.source, stablehlo: e.stablehlo, hlo: e.hlo }));
}

/**
 * True when a StableHLO text was printed without `loc(…)` debug info (`as_text()` rather than
 * `as_text(debug_info=True)`): its ops carry no name stack, so none of them can join an equation.
 */
export function lacksDebugInfo(stablehlo: Analysis): boolean {
  const keys = stablehlo.index.keys;
  return keys.length > 0 && !keys.some((k) => k.source.opName);
}

/** The mapping as a Markdown table: equation, primitive, source, StableHLO ops, HLO instructions. */
export function mappingToMarkdown(rows: readonly MappingRow[]): string {
  const out = ['| line | equation | primitive | source | StableHLO | HLO |', '|---:|---|---|---|---|---|'];
  for (const r of rows) {
    const src = [r.source.opName, r.source.file && `${r.source.file}:${r.source.line ?? ''}${r.source.column ? `:${r.source.column}` : ''}`].filter(Boolean).join(' @ ');
    const shlo = r.stablehlo.map((o) => `${o.name} ${o.op}`).join('<br>');
    const hloOps = r.hlo.map((o) => `${o.name} (${o.op}${o.fusion ? ` in ${o.fusion}` : ''})`).join('<br>');
    out.push(`| ${r.line} | ${cell(r.equation)} | ${cell(r.primitive)} | ${cell(src)} | ${cell(shlo)} | ${cell(hloOps)} |`);
  }
  return out.join('\n');
}

/** `|` would end a cell; line breaks would end the row. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

class Equation {
  readonly path: string[];
  readonly stablehlo: LinkedOp[] = [];
  readonly hlo: LinkedOp[] = [];

  constructor(
    readonly key: CrossLayerKey,
    readonly shape: Shape | undefined,
  ) {
    this.path = (key.source.opName ?? key.op).split('/');
  }
}

interface Shape {
  readonly dims: readonly number[];
  readonly family: string;
}

/** Gives every op of `layer` to its best equation (see `linkLayers`). */
function assign(eqs: readonly Equation[], layer: Analysis, into: (e: Equation) => LinkedOp[]): void {
  const byLast = new Map<string, Equation[]>();
  for (const e of eqs) {
    const last = e.path[e.path.length - 1] ?? '';
    const list = byLast.get(last);
    if (list) list.push(e);
    else byLast.set(last, [e]);
  }
  const types = typesOf(layer);
  const ties: Array<{ op: LinkedOp; tied: Equation[] }> = [];
  for (const k of layer.index.keys) {
    if (!k.source.opName || SKIP_OPS.has(k.op)) continue;
    const path = k.source.opName.split('/');
    const candidates = byLast.get(path[path.length - 1] ?? '');
    if (!candidates) continue;
    const shape = shapeOf(types, k);
    let best = -1;
    let tied: Equation[] = [];
    for (const e of candidates) {
      const s = score(e, path, k.source, shape);
      if (s > best) { best = s; tied = [e]; }
      else if (s === best && s >= 0) tied.push(e);
    }
    if (best < 0) continue;
    const op: LinkedOp = k.fusion ? { name: k.name, op: k.op, scope: k.scope, line: k.line, fusion: k.fusion } : { name: k.name, op: k.op, scope: k.scope, line: k.line };
    ties.push({ op, tied });
  }
  // Ops tied between several equations are dealt out in program order, proportionally.
  const groups = new Map<string, number>();
  for (const t of ties) if (t.tied.length > 1) groups.set(groupKey(t.tied), (groups.get(groupKey(t.tied)) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const t of ties) {
    if (t.tied.length === 1) {
      const only = t.tied[0];
      if (only) into(only).push(t.op);
      continue;
    }
    const g = groupKey(t.tied);
    const k = seen.get(g) ?? 0;
    seen.set(g, k + 1);
    const m = groups.get(g) ?? 1;
    const e = t.tied[Math.min(t.tied.length - 1, Math.floor((k * t.tied.length) / m))];
    if (e) into(e).push(t.op);
  }
}

function groupKey(eqs: readonly Equation[]): string {
  return eqs.map((e) => e.key.from).join(',');
}

/** How well an op (name-stack `path`, `source`, result `shape`) fits equation `e`; -1 rules it out. */
function score(e: Equation, path: readonly string[], source: SourceRef, shape: Shape | undefined): number {
  let s = 0;
  const a = e.key.source;
  if (a.file !== undefined && source.file !== undefined && a.line !== undefined && source.line !== undefined) {
    if (!(a.file.endsWith(source.file) || source.file.endsWith(a.file)) || a.line !== source.line) return -1;
    s += 100;
    if (a.column !== undefined && source.column !== undefined) {
      if (a.column !== source.column) return -1;
      s += 50;
    }
  }
  let k = 0;
  while (k < e.path.length && k < path.length && e.path[e.path.length - 1 - k] === path[path.length - 1 - k]) k++;
  s += 10 * k;
  if (shape && e.shape) {
    if (sameDims(shape.dims, e.shape.dims)) s += 5;
    if (shape.family === e.shape.family) s += 2;
  }
  return s;
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Printed type of every value of a layer, by scope and name. */
function typesOf(layer: Analysis): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of layer.index.values) out.set(`${v.scope}\u0000${v.name}`, v.type);
  return out;
}

/** Result shape of a key, from the values of its layer (first result of multi-result ops). */
function shapeOf(types: ReadonlyMap<string, string>, key: CrossLayerKey): Shape | undefined {
  const t = types.get(`${key.scope}\u0000${key.name.split(',')[0] ?? ''}`);
  if (t === undefined) return undefined;
  const arr = t.startsWith('tensor<') ? parseMlirType(t) : jaxprArrayType(t);
  if (!arr || !isArrayType(arr)) return undefined;
  return { dims: arr.dims, family: familyOf(arr.dtype) };
}

/** `float32`, `f32`, `bf16` → `f`; `s32`, `i32`, `int32`, `ui8` → `i`; `pred`, `i1`, `bool` → `b`. */
function familyOf(dtype: string): string {
  const d = dtype.toLowerCase();
  if (d === 'pred' || d === 'i1' || d === 'bool') return 'b';
  if (/^(f|bf|tf|float|bfloat)\d/.test(d)) return 'f';
  if (/^(s|u|i|si|ui|int|uint)\d/.test(d)) return 'i';
  if (/^(c|complex)/.test(d)) return 'c';
  return d;
}
