import { catalogueLayerOf, type CatalogueLayer } from '@seam/shared/ir';
import { isPassDump, layerGroups, type DocumentMeta, type LayerGroup } from '@seam/shared/model';

/** One document per catalogue layer of a group (pass dumps left out; the last of a kind listed). */
export function catalogueDocsOf(docs: readonly DocumentMeta[]): Partial<Record<CatalogueLayer, DocumentMeta>> {
  const out: Partial<Record<CatalogueLayer, DocumentMeta>> = {};
  for (const d of docs) {
    const layer = catalogueLayerOf(d.kind);
    if (layer && !isPassDump(d)) out[layer] = d;
  }
  return out;
}

/** The groups of a document list that hold a program layer, for the "against…" choice. */
export function programGroups(list: readonly DocumentMeta[]): LayerGroup[] {
  return layerGroups(list).filter((g) => Object.keys(catalogueDocsOf(g.docs)).length > 0);
}
