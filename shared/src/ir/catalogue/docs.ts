import type { DocumentMeta } from '../../model/document';
import { isPassDump, layerGroups, type LayerGroup } from '../../model/layer-groups';
import { catalogueLayerOf, type CatalogueLayer } from './types';

/** One document per catalogue layer of a group (pass dumps left out; the last of a kind listed). */
export function catalogueDocsOf(docs: readonly DocumentMeta[]): Partial<Record<CatalogueLayer, DocumentMeta>> {
  const out: Partial<Record<CatalogueLayer, DocumentMeta>> = {};
  for (const d of docs) {
    const layer = catalogueLayerOf(d.kind);
    if (layer && !isPassDump(d)) out[layer] = d;
  }
  return out;
}

/** The groups of a document list that hold a program layer: what the catalogue view offers and the export catalogues. */
export function programGroups(list: readonly DocumentMeta[]): LayerGroup[] {
  return layerGroups(list).filter((g) => Object.keys(catalogueDocsOf(g.docs)).length > 0);
}
