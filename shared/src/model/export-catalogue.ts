import { catalogue, catalogueDocsOf, catalogueMarkdown, layerCard, programGroups, type CatalogueEntry, type CatalogueLayer, type LayerCard, type LayerIndex } from '../ir/catalogue/index';
import type { Analysis } from '../ir/types';
import type { DocumentMeta } from './document';
import type { LayerGroup } from './layer-groups';

/**
 * Largest text the export reads again for a catalogue, per layer: a larger one is catalogued from
 * its stored analysis alone (casts then say only the dtype they cast to, and shardings carried as
 * attributes are not listed), which the entry says.
 */
export const MAX_EXPORT_CATALOGUE_TEXT_BYTES = 4 * 1024 * 1024;

/** Sites kept per entry and layer in the JSON export; counts and bytes always cover them all. */
export const MAX_EXPORT_CATALOGUE_SITES = 200;

/** One group's lower() vs compile() card and operator catalogue in the export. */
export interface ExportedCatalogue {
  /** The group's key (`capture:<job id>`, `module:<group id>`, `single:<document id>`), as `layerGroups` gives it. */
  readonly group: string;
  /** The group as the document list names it: `capture #2`, `module 0042 jit_train_step`. */
  readonly label: string;
  /** The document each layer was read from. */
  readonly documents: Partial<Record<CatalogueLayer, { readonly id: string; readonly title: string }>>;
  readonly card: LayerCard;
  /** Entries as `catalogue` gives them, each layer's `sites` cut at `MAX_EXPORT_CATALOGUE_SITES`. */
  readonly entries: readonly CatalogueEntry[];
  /** `catalogueMarkdown` of the card and entries, dump text escaped as inert text by the export. */
  readonly markdown: string;
  /** Titles of the layers catalogued without their text (over `MAX_EXPORT_CATALOGUE_TEXT_BYTES`, or not stored). */
  readonly withoutText?: readonly string[];
  /** Titles of the layers left out: no analysis is stored for them. */
  readonly unanalysed?: readonly string[];
}

/** What `exportCatalogue` reads: each document's stored analysis and text, and how dump text is escaped for Markdown. */
export interface ExportCatalogueSources {
  readonly analysisOf: (d: DocumentMeta) => Analysis | undefined;
  readonly textOf: (d: DocumentMeta) => string | undefined;
  readonly escape: (s: string) => string;
}

/** The groups the export catalogues, with the document of each layer: every group holding a program layer, as the catalogue view offers them. */
export function catalogueGroups(documents: readonly DocumentMeta[]): { readonly group: LayerGroup; readonly docs: Partial<Record<CatalogueLayer, DocumentMeta>> }[] {
  return programGroups(documents).map((group) => ({ group, docs: catalogueDocsOf(group.docs) }));
}

/**
 * The card and catalogue of one group for the export: each layer's stored analysis, and its text
 * when at most `maxTextBytes` (then casts name their source dtype and shardings carried as
 * attributes are listed). Layers with no stored analysis are named in `unanalysed`. Never throws.
 */
export function exportCatalogue(group: LayerGroup, docs: Partial<Record<CatalogueLayer, DocumentMeta>>, src: ExportCatalogueSources, maxTextBytes = MAX_EXPORT_CATALOGUE_TEXT_BYTES): ExportedCatalogue {
  const layers: LayerIndex[] = [];
  const documents: Partial<Record<CatalogueLayer, { id: string; title: string }>> = {};
  const withoutText: string[] = [];
  const unanalysed: string[] = [];
  for (const [layer, d] of Object.entries(docs) as [CatalogueLayer, DocumentMeta][]) {
    const a = src.analysisOf(d);
    if (!a) {
      unanalysed.push(d.title);
      continue;
    }
    const text = d.bytes <= maxTextBytes ? src.textOf(d) : undefined;
    if (text === undefined) withoutText.push(d.title);
    layers.push(text === undefined ? { layer, index: a.index } : { layer, index: a.index, text });
    documents[layer] = { id: d.id, title: d.title };
  }
  const card = layerCard(layers);
  const entries = catalogue(layers);
  const markdown = catalogueMarkdown(group.label, card, entries, undefined, src.escape);
  const cut = entries.map((e): CatalogueEntry => ({
    ...e,
    layers: Object.fromEntries(Object.entries(e.layers).map(([l, o]) => [l, o.sites.length > MAX_EXPORT_CATALOGUE_SITES ? { ...o, sites: o.sites.slice(0, MAX_EXPORT_CATALOGUE_SITES) } : o])),
  }));
  return {
    group: group.key, label: group.label, documents, card, entries: cut, markdown,
    ...(withoutText.length > 0 ? { withoutText } : {}),
    ...(unanalysed.length > 0 ? { unanalysed } : {}),
  };
}
