import { jaxprArrayType } from '../jaxpr/index';
import { isArrayType, parseMlirType } from '../mlir/types';
import type { CrossLayerKey, KernelInfo, ValueInfo } from '../types';
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
  }
  const order = (c: CatalogueCategory) => CATALOGUE_CATEGORIES.indexOf(c);
  return [...entries.values()].sort((a, b) => order(a.category) - order(b.category) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
