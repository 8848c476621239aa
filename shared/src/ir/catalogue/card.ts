import { collectiveOf, isCustomCallOp, normalOp, opCategoryOf } from './classify';
import { CATALOGUE_LAYERS, type CardLayer, type LayerCard, type LayerIndex, type OpCategory } from './types';

/**
 * The lower() vs compile() card of one module group: for each layer given (sorted jaxpr,
 * StableHLO, HLO before, optimized HLO), its lines and bytes, ops by category, fusions by kind,
 * custom calls and collectives, and lines and bytes against the first layer (the size difference
 * is itself a signal). Fusion instructions are counted as fusions, not ops: their fused ops are the
 * ops. Never throws; a layer with no lines or bytes gives ratios of 0 against it.
 */
export function layerCard(layers: readonly LayerIndex[]): LayerCard {
  const sorted = [...layers].sort((a, b) => CATALOGUE_LAYERS.indexOf(a.layer) - CATALOGUE_LAYERS.indexOf(b.layer));
  const first = sorted[0];
  const ratio = (n: number, d: number | undefined) => (d ? n / d : 0);
  return {
    layers: sorted.map(({ layer, index }): CardLayer => {
      const opsByCategory: Partial<Record<OpCategory, number>> = {};
      let ops = 0;
      let collectives = 0;
      let customCalls = 0;
      for (const k of index.keys) {
        const op = normalOp(k.op);
        if (op === 'fusion') continue;
        ops++;
        const c = opCategoryOf(op);
        opsByCategory[c] = (opsByCategory[c] ?? 0) + 1;
        if (collectiveOf(op)) collectives++;
        if (isCustomCallOp(op)) customCalls++;
      }
      const fusionKinds: Record<string, number> = {};
      for (const f of index.fusions) fusionKinds[f.kind] = (fusionKinds[f.kind] ?? 0) + 1;
      return {
        layer,
        lines: index.lines,
        bytes: index.bytes,
        ops,
        opsByCategory,
        fusions: index.fusions.length,
        fusionKinds,
        customCalls,
        collectives,
        linesRatio: ratio(index.lines, first?.index.lines),
        bytesRatio: ratio(index.bytes, first?.index.bytes),
      };
    }),
  };
}
