import { jaxprArrayType } from '../jaxpr/index';
import { isArrayType, parseMlirType } from '../mlir/types';
import type { CrossLayerKey, KernelInfo, ValueInfo } from '../types';
import { readShardings } from './shardings';
import { readTextDetails } from './text-details';
import {
  collectiveOf, isBarrierOp, isCastOp, isCustomCallOp, isHostOp, isHostTarget, isRematOp, isShardingOp, isShardingTarget, normalOp, rematOf,
} from './classify';
import { CATALOGUE_CATEGORIES, CatalogueCategory, CatalogueLayer, type CatalogueEntry, type CatalogueSite, type LayerIndex } from './types';

/** Labels of the remat entries. */
export const REMAT_LABELS = { checkpointed: 'checkpointed region', recomputed: 'recomputed (rematted_computation)' } as const;

/** A layer's values by scope and name, for a result's type and bytes. */
class ValueTable {
  private readonly byName = new Map<string, ValueInfo>();
  constructor(values: readonly ValueInfo[]) {
    for (const v of values) this.byName.set(`${v.scope}\u0000${v.name}`, v);
  }
  /** The value `name` of `scope`, where the index typed it. */
  get(scope: string, name: string): ValueInfo | undefined {
    return this.byName.get(`${scope}\u0000${name}`);
  }
  /** The values an op's result names (`d` or `bo,bp`) are, where the index typed them. */
  results(k: CrossLayerKey): ValueInfo[] {
    const out: ValueInfo[] = [];
    for (const n of k.name.split(',')) {
      const v = this.byName.get(`${k.scope}\u0000${n}`);
      if (v) out.push(v);
    }
    return out;
  }
}

/** A type's element type: `bf16[8,32]{1,0}`, `tensor<8x32xbf16>` → `bf16`; `undefined` for tuples and untyped. */
export function dtypeOfType(layer: CatalogueLayer, type: string): string | undefined {
  if (layer === CatalogueLayer.stablehlo) {
    const t = parseMlirType(type);
    return isArrayType(t) ? t.dtype : undefined;
  }
  return jaxprArrayType(type)?.dtype;
}

/** The catalogue entries (category, label) one op of one layer belongs to. */
function entriesOf(layer: CatalogueLayer, k: CrossLayerKey, kernel: KernelInfo | undefined, results: readonly ValueInfo[], castFrom: () => string | undefined, textTarget: string | undefined): [CatalogueCategory, string][] {
  const op = normalOp(k.op);
  const out: [CatalogueCategory, string][] = [];
  const remat = rematOf(k.source.opName);
  if (isRematOp(op)) out.push([CatalogueCategory.remat, REMAT_LABELS.checkpointed]);
  else if (remat && op !== 'parameter') out.push([CatalogueCategory.remat, REMAT_LABELS[remat]]);
  if (isCastOp(op)) {
    const to = results.length === 1 && results[0] ? dtypeOfType(layer, results[0].type) : undefined;
    const from = castFrom();
    out.push([CatalogueCategory.cast, from === undefined ? `→ ${to ?? '?'}` : `${from} → ${to ?? '?'}`]);
  }
  if (isBarrierOp(op)) out.push([CatalogueCategory.barrier, 'optimization barrier']);
  const collective = collectiveOf(op);
  if (collective) out.push([CatalogueCategory.collective, collective]);
  if (isShardingOp(op)) out.push([CatalogueCategory.sharding, op]);
  if (isHostOp(op)) out.push([CatalogueCategory.host, op]);
  if (isCustomCallOp(op)) {
    // HLO's index names the target; StableHLO's text does; else the primitive that made it.
    const target = kernel?.target ?? textTarget ?? k.source.opName?.split('/').pop() ?? op;
    if (isShardingTarget(target) || isShardingOp(normalOp(target))) out.push([CatalogueCategory.sharding, target]);
    else if (isHostTarget(target)) out.push([CatalogueCategory.host, target]);
    else out.push([CatalogueCategory.customCall, kernel?.kernelName ? `${target} (${kernel.kernelName})` : target]);
  }
  return out;
}

/** Spans sorted by start, for the one holding an offset. */
function sortedByFrom<T extends { readonly from: number; readonly to: number }>(xs: readonly T[]): T[] {
  return [...xs].sort((a, b) => a.from - b.from);
}

/** The span of `xs` (sorted by start) holding `at`, the innermost when nested; `undefined` if none. */
function holding<T extends { readonly from: number; readonly to: number }>(xs: readonly T[], at: number): T | undefined {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid]?.from ?? 0) <= at) lo = mid + 1;
    else hi = mid - 1;
  }
  // The last span starting at or before `at`; a nested op ends before its region's parent does.
  for (let i = hi; i >= 0 && i > hi - 64; i--) {
    const x = xs[i];
    if (x && x.to >= at) return x;
  }
  return undefined;
}

/**
 * The sites of the shardings a layer's text carries as attributes (see `readShardings`): on an op,
 * that op (a parameter, a mesh) and its results' bytes; on a function argument, the argument and its
 * bytes; on a function's results, the line, named `result`.
 */
function shardingSites(layer: CatalogueLayer, text: string, keys: readonly CrossLayerKey[], values: readonly ValueInfo[]): { label: string; bytes: number; site: CatalogueSite }[] {
  const attrs = readShardings(layer, text);
  if (attrs.length === 0) return [];
  const byFrom = sortedByFrom(keys);
  const vals = sortedByFrom(values);
  const table = new ValueTable(values);
  let line = 1;
  let counted = 0;
  return attrs.map(({ label, from, to }) => {
    for (let n = text.indexOf('\n', counted); n >= 0 && n < from; n = text.indexOf('\n', n + 1)) {
      line++;
      counted = n + 1;
    }
    const k = holding(byFrom, from);
    if (k) return { label, bytes: table.results(k).reduce((s, r) => s + r.bytes, 0), site: { line: k.line, from, to, name: k.name, op: k.op } };
    // A StableHLO function's argument: `%arg0: tensor<64x32xf32> {sdy.sharding = …}`, its value spanning its attributes.
    const v = holding(vals, from);
    if (v) return { label, bytes: v.bytes, site: { line: v.line, from, to, name: v.name, op: 'argument' } };
    return { label, bytes: 0, site: { line, from, to, name: 'result', op: 'result' } };
  });
}

/**
 * The operator catalogue of one module: what production code adds (remat regions, optimization
 * barriers, sharding constraints, collectives, casts, custom calls and kernels, host transfers),
 * each entry with its count, bytes and lines in every layer given. Read from the layers' indexes;
 * a layer given with its `text` has its casts labelled with the dtype they cast from too (`f32 →
 * bf16`) and its StableHLO custom calls by target (both read by `readTextDetails`), else only the dtype cast to (`→ bf16`). Entries sorted by
 * category, then label. Never throws.
 */
export function catalogue(layers: readonly LayerIndex[]): CatalogueEntry[] {
  const entries = new Map<string, { category: CatalogueCategory; label: string; layers: Partial<Record<CatalogueLayer, { count: number; bytes: number; sites: CatalogueSite[] }>> }>();
  for (const { layer, index, text } of layers) {
    const values = new ValueTable(index.values);
    const kernels = new Map<string, KernelInfo>();
    for (const kn of index.kernels ?? []) kernels.set(`${kn.scope}\u0000${kn.name}`, kn);
    const details = text === undefined ? undefined : readTextDetails(layer, text);
    for (const k of index.keys) {
      const results = values.results(k);
      const castFrom = (): string | undefined => {
        if (!details) return undefined;
        const src = details.casts.get(k.from);
        const type = src?.type ?? (src?.name === undefined ? undefined : values.get(k.scope, src.name)?.type);
        return (type === undefined ? undefined : dtypeOfType(layer, type)) ?? '?';
      };
      for (const [category, label] of entriesOf(layer, k, kernels.get(`${k.scope}\u0000${k.name}`), results, castFrom, details?.targets.get(k.from))) {
        const id = `${category}\u0000${label}`;
        let e = entries.get(id);
        if (!e) entries.set(id, (e = { category, label, layers: {} }));
        const at = (e.layers[layer] ??= { count: 0, bytes: 0, sites: [] });
        at.count++;
        at.bytes += results.reduce((s, v) => s + v.bytes, 0);
        at.sites.push({ line: k.line, from: k.from, to: k.to, name: k.name, op: k.op });
      }
    }
    if (text !== undefined) {
      for (const s of shardingSites(layer, text, index.keys, index.values)) {
        const id = `${CatalogueCategory.sharding}\u0000${s.label}`;
        let e = entries.get(id);
        if (!e) entries.set(id, (e = { category: CatalogueCategory.sharding, label: s.label, layers: {} }));
        const at = (e.layers[layer] ??= { count: 0, bytes: 0, sites: [] });
        at.count++;
        at.bytes += s.bytes;
        at.sites.push(s.site);
      }
    }
  }
  const order = (c: CatalogueCategory) => CATALOGUE_CATEGORIES.indexOf(c);
  return [...entries.values()].sort((a, b) => order(a.category) - order(b.category) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
