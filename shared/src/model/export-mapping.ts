import { lacksDebugInfo, linkLayers } from '../ir/link';
import type { Analysis, MappingRow } from '../ir/types';
import type { DocumentMeta } from './document';
import { layerGroups, pickLayerDocs, type Layer } from './layer-groups';

/** One capture or module group that holds all three layers, and the documents the export pairs. */
export interface MappingGroup {
  /** The group's key (`capture:<job id>` or `module:<group id>`), as `layerGroups` gives it. */
  readonly group: string;
  /** The group as the document list names it: `capture #2`, `module 0042 jit_train_step`. */
  readonly label: string;
  readonly layers: Readonly<Record<Layer, DocumentMeta>>;
}

/** A group's mapping table in the export: one row per jaxpr equation, with what it became. */
export interface ExportedMapping {
  readonly group: string;
  readonly label: string;
  /** The documents the rows come from, one per layer, all of this group. */
  readonly documents: Readonly<Record<Layer, { readonly id: string; readonly title: string }>>;
  readonly rows: readonly MappingRow[];
  /** True when the StableHLO was printed without `loc(…)` debug info, so none of its ops could join. */
  readonly stablehloWithoutLocs: boolean;
}

/**
 * The groups a mapping table can be made for: each capture or module group with a jaxpr, a
 * StableHLO and an HLO (optimized preferred), picked within the group. Loose documents are never
 * paired, and no table mixes layers of two groups.
 */
export function mappingGroups(documents: readonly DocumentMeta[]): MappingGroup[] {
  const out: MappingGroup[] = [];
  for (const g of layerGroups(documents)) {
    if (g.kind === 'single') continue;
    const { jaxpr, stablehlo, hlo } = pickLayerDocs(g.docs);
    if (jaxpr && stablehlo && hlo) out.push({ group: g.key, label: g.label, layers: { jaxpr, stablehlo, hlo } });
  }
  return out;
}

/** The mapping table of each group in `groups` whose three analyses `analysisOf` has; others are left out. */
export function exportMappings(groups: readonly MappingGroup[], analysisOf: (docId: string) => Analysis | undefined): ExportedMapping[] {
  const out: ExportedMapping[] = [];
  for (const g of groups) {
    const j = analysisOf(g.layers.jaxpr.id);
    const s = analysisOf(g.layers.stablehlo.id);
    const h = analysisOf(g.layers.hlo.id);
    if (!j || !s || !h) continue;
    const ref = (d: DocumentMeta) => ({ id: d.id, title: d.title });
    out.push({
      group: g.group, label: g.label,
      documents: { jaxpr: ref(g.layers.jaxpr), stablehlo: ref(g.layers.stablehlo), hlo: ref(g.layers.hlo) },
      rows: linkLayers(j, s, h), stablehloWithoutLocs: lacksDebugInfo(s),
    });
  }
  return out;
}
