import { jaxprArrayType } from './jaxpr/index';
import { isArrayType, parseMlirType } from './mlir/types';
import { readNameStack, type NameStack } from './name-stack';
import type { Analysis, CrossLayerKey, LinkedOp, MappingRow, SourceRef } from './types';

/** HLO instructions that only name an input; they are not what an equation became. */
const SKIP_OPS = new Set(['parameter']);

/**
 * Joins the three layers of one program: one row per jaxpr equation, in text order, with the
 * StableHLO ops and HLO instructions (fused or not) that came from it. An op joins the equation
 * whose primitive is the last component of the op's name stack (`jit(mlp)/dot_general`); an HLO
 * `dot` named after a `transpose` is a weight-gradient dot whose transpose XLA folded in, and
 * joins a `dot_general`. Among those equations:
 * - a different source file or line, or a different column where both print one (HLO's
 *   `FileLocations` do), rules a pair out;
 * - so do name stacks under different transforms (`jvp` against `transpose(jvp)`), when the jaxpr
 *   was printed with name stacks; lowering components (`while/body`, `closed_call`, `checkpoint`)
 *   are not compared;
 * - the pair sharing more of the user's scopes from the inside out wins, and a scope the equation
 *   is in but the op is not counts against it;
 * - then the same result shape (or the same elements regrouped, `[2,8,32]` as `[16,32]`, or
 *   permuted for a folded transpose), element kind and, for dots, contraction size (what tells
 *   one call of a function from the next when only its input width differs) and operand form
 *   (which runs of each operand's dimensions are contracted, batch or free, flattening aside:
 *   what tells `dW = xᵀ·dy` from `dx = dy·Wᵀ` when their results happen to have one shape).
 * Ops in reducer or comparator computations (`applied`) join nothing. Equations that still tie
 * share the ops of each opcode out in program order.
 */
export function linkLayers(jaxpr: Analysis, stablehlo: Analysis, hlo: Analysis): MappingRow[] {
  const jaxprTypes = typesOf(jaxpr);
  const jaxprDots = dotsOf(jaxpr);
  const eqs = [...jaxpr.index.keys].sort((a, b) => a.from - b.from).map((k) => new Equation(k, shapeOf(jaxprTypes, k), jaxprDots.get(nameKey(k.scope, k.name))));
  // Without name stacks every equation reads as under no transform: the transforms say nothing then.
  const transformsKnown = hasNameStacks(jaxpr);
  const candidates = new Candidates(eqs);
  assign(candidates, stablehlo, transformsKnown, (e) => e.stablehlo);
  assign(candidates, hlo, transformsKnown, (e) => e.hlo);
  return eqs.map((e) => ({ equation: e.key.name, primitive: e.key.op, scope: e.key.scope, line: e.key.line, source: e.key.source, stablehlo: e.stablehlo, hlo: e.hlo }));
}

/**
 * True when a layer carries nothing to join on: a jaxpr printed without source info (no
 * `# file.py:12:3` comments), a StableHLO printed without `loc(…)` (`as_text()` rather than
 * `as_text(debug_info=True)`), an HLO without `metadata={op_name=…}`. False for an empty layer.
 */
export function lacksDebugInfo(layer: Analysis): boolean {
  const keys = layer.index.keys;
  if (keys.length === 0) return false;
  return layer.index.kind === 'jaxpr' ? !keys.some((k) => k.source.file !== undefined) : !keys.some((k) => k.source.opName);
}

/**
 * True when the jaxpr was printed without name stacks (`pretty_print(name_stack=False)`) while
 * the ops of the other layers run under transforms (`jvp(…)`, `transpose(…)`): joins cannot then
 * tell a forward op from the backward ops of the same source line.
 */
export function lacksNameStacks(jaxpr: Analysis, ...others: readonly Analysis[]): boolean {
  if (jaxpr.index.keys.length === 0 || hasNameStacks(jaxpr)) return false;
  return others.some((a) => a.index.keys.some((k) => k.source.opName !== undefined && readNameStack(k.source.opName).transforms !== ''));
}

/** Whether a jaxpr's keys carry name stacks beyond the bare primitive. */
function hasNameStacks(jaxpr: Analysis): boolean {
  return jaxpr.index.keys.some((k) => k.source.opName?.includes('/'));
}

/** The mapping as a Markdown table: equation, primitive, source, StableHLO ops, HLO instructions. */
export function mappingToMarkdown(rows: readonly MappingRow[]): string {
  const out = ['| line | equation | primitive | source | StableHLO | HLO |', '|---:|---|---|---|---|---|'];
  for (const r of rows) {
    const src = [r.source.opName, r.source.file && `${r.source.file}:${r.source.line ?? ''}${r.source.column ? `:${r.source.column}` : ''}`].filter(Boolean).join(' @ ');
    const shlo = r.stablehlo.map((o) => `${o.name} ${o.op}`).join('<br>');
    const hloOps = r.hlo.map((o) => `${o.name} (${o.op}${o.fusion ? ` in ${o.fusion}` : ''})`).join('<br>');
    out.push(`| ${r.line} | ${markdownCell(r.equation)} | ${markdownCell(r.primitive)} | ${markdownCell(src)} | ${markdownCell(shlo)} | ${markdownCell(hloOps)} |`);
  }
  return out.join('\n');
}

/** Dump text for a Markdown table cell: `|` would end the cell, a line break the row. */
export function markdownCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

class Equation {
  readonly stack: NameStack;
  readonly stablehlo: LinkedOp[] = [];
  readonly hlo: LinkedOp[] = [];

  constructor(
    readonly key: CrossLayerKey,
    readonly shape: Shape | undefined,
    readonly dot: DotFacts | undefined,
  ) {
    this.stack = readNameStack(key.source.opName ?? key.op);
  }
}

interface Shape {
  readonly dims: readonly number[];
  readonly family: string;
}

/** An op of another layer as the join reads it. */
interface Op {
  readonly stack: NameStack;
  readonly source: SourceRef;
  readonly shape: Shape | undefined;
  readonly dot: DotFacts | undefined;
  /** An HLO dot named after the transpose XLA folded into it. */
  readonly foldedTranspose: boolean;
}

/**
 * The equations an op may join, in text order: those of its primitive and, when the op has a source
 * file and line, only those on that line or without one (any other is ruled out by `score`), so
 * a large program does not score every `add` against every `add`.
 */
class Candidates {
  private readonly byLeaf = new Map<string, { all: Equation[]; byLine: Map<number, Equation[]>; noLine: Equation[]; merged: Map<number, Equation[]> }>();

  constructor(eqs: readonly Equation[]) {
    for (const e of eqs) {
      let g = this.byLeaf.get(e.stack.leaf);
      if (!g) {
        g = { all: [], byLine: new Map(), noLine: [], merged: new Map() };
        this.byLeaf.set(e.stack.leaf, g);
      }
      g.all.push(e);
      const { file, line } = e.key.source;
      if (file === undefined || line === undefined) g.noLine.push(e);
      else {
        const list = g.byLine.get(line);
        if (list) list.push(e);
        else g.byLine.set(line, [e]);
      }
    }
  }

  of(leaf: string, source: SourceRef): readonly Equation[] | undefined {
    const g = this.byLeaf.get(leaf);
    if (!g || source.file === undefined || source.line === undefined) return g?.all;
    const same = g.byLine.get(source.line);
    if (g.noLine.length === 0 || !same) return same ?? g.noLine;
    let merged = g.merged.get(source.line);
    if (!merged) {
      merged = [...same, ...g.noLine].sort((a, b) => a.key.from - b.key.from);
      g.merged.set(source.line, merged);
    }
    return merged;
  }
}

/** Gives every op of `layer` to its best equation (see `linkLayers`). */
function assign(eqs: Candidates, layer: Analysis, transformsKnown: boolean, into: (e: Equation) => LinkedOp[]): void {
  const types = typesOf(layer);
  const dots = dotsOf(layer);
  const ties: Array<{ op: LinkedOp; tied: Equation[]; group: string }> = [];
  // A large HLO repeats a few thousand name stacks over its instructions: each is read once.
  const stacks = new Map<string, NameStack>();
  for (const k of layer.index.keys) {
    if (!k.source.opName || SKIP_OPS.has(k.op) || k.applied) continue;
    let stack = stacks.get(k.source.opName);
    if (!stack) {
      stack = readNameStack(k.source.opName);
      stacks.set(k.source.opName, stack);
    }
    const foldedTranspose = k.op === 'dot' && stack.leaf === 'transpose';
    const candidates = eqs.of(foldedTranspose ? 'dot_general' : stack.leaf, k.source);
    if (!candidates) continue;
    const op: Op = { stack, source: k.source, shape: shapeOf(types, k), dot: dots.get(nameKey(k.scope, k.name)), foldedTranspose };
    let best = -Infinity;
    let tied: Equation[] = [];
    for (const e of candidates) {
      const s = score(e, op, transformsKnown);
      if (s === undefined) continue;
      if (s > best) { best = s; tied = [e]; }
      else if (s === best) tied.push(e);
    }
    if (tied.length === 0) continue;
    const linked: LinkedOp = k.fusion ? { name: k.name, op: k.op, scope: k.scope, line: k.line, fusion: k.fusion } : { name: k.name, op: k.op, scope: k.scope, line: k.line };
    ties.push({ op: linked, tied, group: tied.length > 1 ? groupKey(tied, linked) : '' });
  }
  // Ops of one opcode tied between several equations are dealt out in program order, proportionally.
  const groups = new Map<string, number>();
  for (const t of ties) if (t.tied.length > 1) groups.set(t.group, (groups.get(t.group) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const t of ties) {
    if (t.tied.length === 1) {
      const only = t.tied[0];
      if (only) into(only).push(t.op);
      continue;
    }
    const g = t.group;
    const k = seen.get(g) ?? 0;
    seen.set(g, k + 1);
    const m = groups.get(g) ?? 1;
    const e = t.tied[Math.min(t.tied.length - 1, Math.floor((k * t.tied.length) / m))];
    if (e) into(e).push(t.op);
  }
}

function groupKey(eqs: readonly Equation[], op: LinkedOp): string {
  return `${op.op} ${eqs.map((e) => e.key.from).join(',')}`;
}

/** How well `op` fits equation `e`; undefined rules it out. */
function score(e: Equation, op: Op, transformsKnown: boolean): number | undefined {
  let s = 0;
  const a = e.key.source;
  const b = op.source;
  if (a.file !== undefined && b.file !== undefined && a.line !== undefined && b.line !== undefined) {
    if (!(a.file.endsWith(b.file) || b.file.endsWith(a.file)) || a.line !== b.line) return undefined;
    s += 100;
    if (a.column !== undefined && b.column !== undefined) {
      if (a.column !== b.column) return undefined;
      s += 50;
    }
  }
  if (transformsKnown && e.stack.transforms !== op.stack.transforms) return undefined;
  const es = e.stack.scopes;
  const os = op.stack.scopes;
  let k = 0;
  while (k < es.length && k < os.length && es[es.length - 1 - k] === os[os.length - 1 - k]) k++;
  // The op may lack outer scopes the jaxpr never printed (`jit(train)`); not inner ones the equation has.
  s += 10 * k - 10 * (es.length - k);
  if (op.shape && e.shape) {
    // XLA merges dimensions as it pleases (a dot is computed on `[B·T, D]`): as good as equal.
    if (op.foldedTranspose ? samePermuted(op.shape.dims, e.shape.dims) : sameDims(op.shape.dims, e.shape.dims) || regrouped(op.shape.dims, e.shape.dims)) s += 5;
    if (op.shape.family === e.shape.family) s += 2;
  }
  if (op.dot && e.dot) {
    if (op.dot.contraction === e.dot.contraction) s += 3;
    if (op.dot.form === e.dot.form) s += 3;
  }
  return s;
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** The same dimensions in some order: a dot whose output XLA transposed. */
function samePermuted(a: readonly number[], b: readonly number[]): boolean {
  return sameDims([...a].sort((x, y) => x - y), [...b].sort((x, y) => x - y));
}

/**
 * The same elements with neighbouring dimensions merged or split, as a bitcast reshapes them:
 * `[2,8,32]` and `[16,32]`; size-1 dimensions aside. Dynamic dimensions (-1) never regroup.
 */
function regrouped(a: readonly number[], b: readonly number[]): boolean {
  // Walks both lists at once, size-1 dimensions skipped, multiplying the smaller side's run up.
  let i = skipOnes(a, 0);
  let j = skipOnes(b, 0);
  while (i < a.length && j < b.length) {
    let p = a[i++] as number;
    let q = b[j++] as number;
    if (p < 1 || q < 1) return false;
    while (p !== q) {
      if (p < q) {
        i = skipOnes(a, i);
        if (i >= a.length || (a[i] as number) < 1) return false;
        p *= a[i++] as number;
      } else {
        j = skipOnes(b, j);
        if (j >= b.length || (b[j] as number) < 1) return false;
        q *= b[j++] as number;
      }
    }
    i = skipOnes(a, i);
    j = skipOnes(b, j);
  }
  return i === a.length && j === b.length;
}

function skipOnes(dims: readonly number[], from: number): number {
  let k = from;
  while (k < dims.length && dims[k] === 1) k++;
  return k;
}

function nameKey(scope: string, name: string): string {
  return `${scope}\u0000${name}`;
}

/** What a dot's operands say, read alike whatever dimensions XLA merged. */
interface DotFacts {
  /** The product of the lhs contracting dimensions. */
  readonly contraction: number;
  /** Each operand's runs of batch, contracting and free dimensions with their sizes: `f32c32·c32f64`. */
  readonly form: string;
}

/** Each dot's facts by scope and name; dots with dynamic or unknown operand shapes left out. */
function dotsOf(layer: Analysis): Map<string, DotFacts> {
  const out = new Map<string, DotFacts>();
  for (const d of layer.index.dots) {
    if (d.lhs.length === 0 || d.rhs.length === 0 || d.lhs.some((n) => n < 0) || d.rhs.some((n) => n < 0)) continue;
    let contraction = 1;
    for (const c of d.lhsContracting) contraction *= d.lhs[c] ?? 1;
    out.set(nameKey(d.scope, d.name), { contraction, form: `${operandForm(d.lhs, d.lhsBatch, d.lhsContracting)}·${operandForm(d.rhs, d.rhsBatch, d.rhsContracting)}` });
  }
  return out;
}

/** `[4,8,32]` contracting `[2]` → `f32c32`: neighbouring dimensions of one role merged, size-1 ones dropped. */
function operandForm(dims: readonly number[], batch: readonly number[], contracting: readonly number[]): string {
  let out = '';
  let role = '';
  let size = 1;
  dims.forEach((n, i) => {
    if (n === 1) return;
    const r = batch.includes(i) ? 'b' : contracting.includes(i) ? 'c' : 'f';
    if (r === role) {
      size *= n;
      return;
    }
    if (role) out += `${role}${size}`;
    role = r;
    size = n;
  });
  return role ? `${out}${role}${size}` : out;
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
