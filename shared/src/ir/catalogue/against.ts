import { CATALOGUE_LAYERS, type CatalogueComparison, type CatalogueEntry } from './types';

/** An entry's largest count over its layers (a cast XLA fused twice counts as in the layer that has most). */
export function entryCount(e: CatalogueEntry): number {
  let n = 0;
  for (const l of CATALOGUE_LAYERS) n = Math.max(n, e.layers[l]?.count ?? 0);
  return n;
}

/**
 * Catalogues one module against another: the entries (by category and label) only `here` has, the
 * ones only `there` has, and those both have with different counts. Never throws.
 */
export function catalogueAgainst(here: readonly CatalogueEntry[], there: readonly CatalogueEntry[]): CatalogueComparison {
  const id = (e: CatalogueEntry) => `${e.category}\u0000${e.label}`;
  const thereById = new Map(there.map((e) => [id(e), e]));
  const hereIds = new Set(here.map(id));
  const changed: CatalogueComparison['changed'][number][] = [];
  const onlyHere: CatalogueEntry[] = [];
  for (const e of here) {
    const t = thereById.get(id(e));
    if (!t) onlyHere.push(e);
    else if (entryCount(e) !== entryCount(t)) changed.push({ category: e.category, label: e.label, here: entryCount(e), there: entryCount(t) });
  }
  return { onlyHere, onlyThere: there.filter((e) => !hereIds.has(id(e))), changed };
}
