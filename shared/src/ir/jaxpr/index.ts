import { DocumentKind } from '../../model/document';
import { einsumOf, type DotDimensions } from '../einsum';
import { LineIndex } from '../mlir/lines';
import { arrayBytes } from '../shape';
import type { Analysis, CrossLayerKey, DotInfo, OutlineEntry, ValueInfo } from '../types';
import type { Jaxpr, JaxprAtom, JaxprEquation } from './ast';
import { parseJaxpr } from './parser';

export { parseJaxpr } from './parser';
export type { Jaxpr, JaxprAtom, JaxprEquation, JaxprFile, JaxprParam } from './ast';

/** Call primitives whose sub-jaxpr runs under `jit(name)` in the name stack XLA records. */
const CALLS = new Set(['jit', 'pjit', 'xla_call', 'core_call', 'closed_call']);

/**
 * Parses and indexes a jaxpr: outline of jaxprs and sub-jaxprs, every typed variable with its
 * bytes, decoded `dot_general` equations, and one cross-layer key per equation whose `opName`
 * is the name stack XLA would record (`jit(relu)/max`) and whose file/line/column come from the
 * source-info comments. The equations of a shared `let name = { lambda … } in` jaxpr get the name
 * stack of the first equation that uses it (`remat2[jaxpr=name]` under `transpose(jvp())`).
 * Never throws.
 */
export function indexJaxpr(text: string): Analysis {
  const lines = new LineIndex(text);
  const parsed = parseJaxpr(text, lines);
  const ix = new JaxprIndexer(lines, new Set(parsed.ast.jaxprs.flatMap((j) => (j.name ? [j.name] : []))));
  const outline: OutlineEntry[] = [];
  let mains = 0;
  const shared = new Map<string, { from: number; to: number }>();
  for (const j of parsed.ast.jaxprs) {
    const name = j.name ?? (mains++ === 0 ? 'main' : `main#${mains}`);
    const from = ix.keys.length;
    ix.named = j.name;
    outline.push(ix.jaxpr(j, name, ''));
    if (j.name) shared.set(j.name, { from, to: ix.keys.length });
  }
  ix.placeShared(shared);
  return {
    index: { kind: DocumentKind.jaxpr, bytes: text.length, lines: lines.count, outline, values: ix.values, dots: ix.dots, fusions: [], spills: [], keys: ix.keys },
    diagnostics: parsed.diagnostics,
  };
}

/** `f32[16,32]` → dtype and dims (symbolic dims are -1); `undefined` when untyped. */
export function jaxprArrayType(type: string): { dtype: string; dims: number[] } | undefined {
  const m = /^([A-Za-z_][\w]*)(?:<[^>]*>)?\[([^\]]*)\]/.exec(type);
  if (!m) {
    // `MemRef<None>{float32[8,128]}`: the element array inside braces
    const inner = /\{([A-Za-z_]\w*\[[^\]]*\])\}/.exec(type);
    return inner?.[1] ? jaxprArrayType(inner[1]) : undefined;
  }
  const body = (m[2] ?? '').trim();
  const dims = body === '' ? [] : body.split(',').map((d) => (/^\d+$/.test(d.trim()) ? Number(d.trim()) : -1));
  return { dtype: m[1] ?? '', dims };
}

/**
 * `dimension_numbers=(([1], [0]), ([], []))` (or the legacy `(((1,), (0,)), ((), ()))`) →
 * contracting then batch axes of lhs and rhs.
 */
export function jaxprDotDimensions(value: string): DotDimensions {
  const lists: number[][] = [];
  const re = /[[(]([\d,\s]*)[\])]/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    lists.push((m[1] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number));
  }
  return { lhsContracting: lists[0] ?? [], rhsContracting: lists[1] ?? [], lhsBatch: lists[2] ?? [], rhsBatch: lists[3] ?? [] };
}

class JaxprIndexer {
  readonly values: ValueInfo[] = [];
  readonly dots: DotInfo[] = [];
  readonly keys: CrossLayerKey[] = [];

  /** The shared `let` jaxpr being indexed, if any. */
  named: string | undefined;
  /** Shared jaxpr name → where it is first used: the user's shared jaxpr (if any) and the name stack there. */
  private readonly uses = new Map<string, { readonly within: string | undefined; readonly stack: string }>();
  /** Bytes per type text, which repeats across a jaxpr. */
  private readonly bytes = new Map<string, number>();

  constructor(private readonly lines: LineIndex, private readonly sharedNames: ReadonlySet<string>) {}

  /**
   * Puts in front of the keys of each shared jaxpr (`ranges`: their keys' positions) the name
   * stack where it is first used, composed through shared jaxprs that use one another.
   */
  placeShared(ranges: ReadonlyMap<string, { from: number; to: number }>): void {
    const prefixes = new Map<string, string>();
    const prefixOf = (name: string, seen: Set<string>): string => {
      const known = prefixes.get(name);
      if (known !== undefined) return known;
      const use = this.uses.get(name);
      if (!use || seen.has(name)) return '';
      seen.add(name);
      const prefix = [use.within === undefined ? '' : prefixOf(use.within, seen), use.stack].filter((s) => s).join('/');
      prefixes.set(name, prefix);
      return prefix;
    };
    for (const name of ranges.keys()) prefixOf(name, new Set());
    for (const [name, { from, to }] of ranges) {
      const prefix = prefixes.get(name);
      if (!prefix) continue;
      for (let i = from; i < to; i++) {
        const k = this.keys[i] as CrossLayerKey;
        this.keys[i] = { ...k, source: { ...k.source, opName: `${prefix}/${k.source.opName ?? k.op}` } };
      }
    }
  }

  /** Indexes one jaxpr under `scope`; `stack` is the name-stack prefix of its equations. */
  jaxpr(j: Jaxpr, scope: string, stack: string): OutlineEntry {
    const types = new Map<string, string>();
    for (const v of j.constvars) this.value(v, scope, types);
    for (const v of j.invars) this.value(v, scope, types);
    const children: OutlineEntry[] = [];
    for (const eq of j.equations) {
      for (const v of eq.outvars) this.value(v, scope, types);
      const last = CALLS.has(eq.primitive) && param(eq, 'name') ? `jit(${param(eq, 'name')})` : eq.primitive;
      const opName = [stack, eq.nameStack, last].filter((s) => s).join('/');
      this.keys.push({ from: eq.from, to: eq.to, name: eq.outvars.map((v) => v.text).join(',') || `${eq.primitive}@${eq.line}`, op: eq.primitive, scope, line: eq.line, source: { ...eq.source, opName } });
      if (eq.primitive === 'dot_general') this.dot(eq, scope, types);
      const inner = CALLS.has(eq.primitive) ? opName : [stack, eq.nameStack].filter((s) => s).join('/');
      for (const p of eq.params) {
        if (p.jaxprs.length === 0 && this.sharedNames.has(p.value) && !this.uses.has(p.value)) this.uses.set(p.value, { within: this.named, stack: inner });
        p.jaxprs.forEach((sub, k) => {
          const label = `${scope}/${last === eq.primitive ? eq.primitive : last}.${p.name}${p.jaxprs.length > 1 ? `[${k}]` : ''}`;
          children.push(this.jaxpr(sub, label, inner));
        });
      }
    }
    return { from: j.from, to: j.to, name: scope, kind: 'jaxpr', lineFrom: j.lineFrom, lineTo: j.lineTo, opCount: j.equations.length, children: children.length ? children : undefined };
  }

  private dot(eq: JaxprEquation, scope: string, types: Map<string, string>): void {
    const d = jaxprDotDimensions(param(eq, 'dimension_numbers') ?? '');
    const shape = (a: JaxprAtom | undefined): number[] => {
      if (!a) return [];
      return jaxprArrayType(a.type || types.get(a.text) || '')?.dims ?? [];
    };
    const lhs = shape(eq.invars[0]);
    const rhs = shape(eq.invars[1]);
    // Untyped (legacy) jaxprs: the smallest ranks the axes allow.
    const lhsRank = lhs.length || Math.max(0, ...d.lhsContracting, ...d.lhsBatch) + 1;
    const rhsRank = rhs.length || Math.max(0, ...d.rhsContracting, ...d.rhsBatch) + 1;
    this.dots.push({ from: eq.from, to: eq.to, name: eq.outvars.map((v) => v.text).join(',') || 'dot_general', scope, line: eq.line, lhs, rhs, ...d, einsum: einsumOf(lhsRank, rhsRank, d) });
  }

  private value(v: JaxprAtom, scope: string, types: Map<string, string>): void {
    if (v.literal || v.text === '_' || v.text === '*') return;
    types.set(v.text, v.type);
    let bytes = this.bytes.get(v.type);
    if (bytes === undefined) {
      const t = jaxprArrayType(v.type);
      bytes = t ? arrayBytes(t.dtype, t.dims) : 0;
      this.bytes.set(v.type, bytes);
    }
    this.values.push({ from: v.from, to: v.to, name: v.text, scope, line: this.lines.lineOf(v.from), type: v.type, bytes });
  }
}

function param(eq: JaxprEquation, name: string): string | undefined {
  return eq.params.find((p) => p.name === name)?.value;
}
