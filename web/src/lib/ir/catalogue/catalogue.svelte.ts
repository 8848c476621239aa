import { catalogue, catalogueAgainst, catalogueDocsOf, catalogueMarkdown, layerCard, type CatalogueComparison, type CatalogueEntry, type CatalogueLayer, type LayerCard, type LayerIndex } from '@seam/shared/ir';
import type { DocumentMeta } from '@seam/shared/model';
import { fetchViews, fullAnalysis } from '../../analysis/stored-analysis';

type Entry = { readonly state: 'loading' } | { readonly state: 'ready'; readonly index: LayerIndex['index']; readonly text?: string } | { readonly state: 'failed'; readonly message: string };

/**
 * Texts up to this size are read too, so that casts say the dtype they cast from; a larger dump's
 * casts say only the dtype they cast to (reading it again would hold the page for seconds).
 */
export const MAX_CAST_TEXT = 16 * 1024 * 1024;

/** One module's card and catalogue, with the document each layer's lines are in. */
export interface ModuleCatalogue {
  readonly card: LayerCard;
  readonly entries: readonly CatalogueEntry[];
  readonly docs: Partial<Record<CatalogueLayer, string>>;
}

/** What the view shows for one group: the catalogue, or why there is none yet. */
export type CatalogueResult = { readonly state: 'ready'; readonly value: ModuleCatalogue } | { readonly state: 'waiting' | 'failed'; readonly message: string };

/**
 * The operator catalogue of module groups: each layer document's whole stored analysis (its views
 * and cross-layer keys) and its text (up to `MAX_CAST_TEXT`), fetched once when a group is first
 * catalogued, then the card and the catalogue computed from them. `want` starts the fetches; `of` answers from what has arrived.
 */
export class CatalogueState {
  open = $state(false);
  /** The key of the group catalogued against (see `programGroups`); null for none. */
  againstKey = $state<string | null>(null);
  private entries = $state.raw<Record<string, Entry>>({});
  /** Catalogues computed, by their documents' ids: an analysis arriving for another group does not redo them. */
  private readonly done = new Map<string, ModuleCatalogue>();

  constructor(
    private readonly roomId: string,
    private readonly token: string,
    private readonly base = '',
  ) {}

  /** Starts fetching the analyses of a group's layer documents not fetched yet (call it from an effect). */
  want(group: readonly DocumentMeta[]): void {
    for (const d of Object.values(catalogueDocsOf(group))) this.fetch(d);
  }

  private fetch(d: DocumentMeta): void {
    if (this.entries[d.id]) return;
    this.entries = { ...this.entries, [d.id]: { state: 'loading' } };
    const path = `${this.base}/api/rooms/${encodeURIComponent(this.roomId)}/documents/${encodeURIComponent(d.id)}`;
    const from = { url: `${path}/analysis`, token: this.token };
    const settle = (e: Entry) => (this.entries = { ...this.entries, [d.id]: e });
    const text = d.bytes <= MAX_CAST_TEXT ? this.text(`${path}/text`) : Promise.resolve(undefined);
    fetchViews(from)
      .then((views) => (views ? Promise.all([fullAnalysis({ views, from }), text]) : null))
      .then(
        (r) => settle(r ? { state: 'ready', index: r[0].index, ...(r[1] === undefined ? {} : { text: r[1] }) } : { state: 'failed', message: `no analysis is stored for ${d.title}` }),
        (e: unknown) => settle({ state: 'failed', message: e instanceof Error ? e.message : String(e) }),
      );
  }

  private async text(url: string): Promise<string> {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw new Error(`the document's text request answered ${res.status}`);
    return res.text();
  }

  /** The card and catalogue of a group's documents, once `want` has brought their analyses in. */
  of(group: readonly DocumentMeta[]): CatalogueResult {
    const picked = catalogueDocsOf(group);
    const layers: LayerIndex[] = [];
    const docs: Partial<Record<CatalogueLayer, string>> = {};
    const pairs = Object.entries(picked) as [CatalogueLayer, DocumentMeta][];
    if (pairs.length === 0) return { state: 'failed', message: 'This group holds no jaxpr, StableHLO or HLO.' };
    const key = pairs.map(([, d]) => d.id).join('\n');
    const hit = this.done.get(key);
    if (hit) return { state: 'ready', value: hit };
    for (const [layer, d] of pairs) {
      const e = this.entries[d.id];
      if (!e || e.state === 'loading') return { state: 'waiting', message: `Reading the analysis of ${d.title}…` };
      if (e.state === 'failed') return { state: 'failed', message: e.message };
      layers.push(e.text === undefined ? { layer, index: e.index } : { layer, index: e.index, text: e.text });
      docs[layer] = d.id;
    }
    const value = { card: layerCard(layers), entries: catalogue(layers), docs };
    this.done.set(key, value);
    return { state: 'ready', value };
  }
}

/** The comparison of one catalogue against another, and the Markdown of both. */
export function compared(title: string, here: ModuleCatalogue, against?: { readonly title: string; readonly value: ModuleCatalogue }): { comparison: CatalogueComparison | null; markdown: string } {
  const comparison = against ? catalogueAgainst(here.entries, against.value.entries) : null;
  const markdown = catalogueMarkdown(title, here.card, here.entries, against && comparison ? { title: against.title, comparison } : undefined);
  return { comparison, markdown };
}
