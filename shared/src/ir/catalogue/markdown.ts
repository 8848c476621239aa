import { entryCount } from './against';
import { CATALOGUE_LAYERS, OpCategory, type CatalogueComparison, type CatalogueEntry, type LayerCard } from './types';

/** How the catalogue names its layers to a reader. */
export const CATALOGUE_LAYER_TITLES = { jaxpr: 'jaxpr', stablehlo: 'StableHLO', hlo: 'HLO before', 'hlo-opt': 'optimized HLO' } as const;
const LAYER_TITLES = CATALOGUE_LAYER_TITLES;

/** Table cells hold dump text: pipes and line breaks would end the cell. */
const plainCell = (s: string) => s.replace(/[|\\]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
const num = (n: number) => n.toLocaleString('en-US');

/** Where an entry is in one layer, e.g. `3 (lines 12, 40, 41)`. */
function where(e: CatalogueEntry, layer: keyof typeof LAYER_TITLES): string {
  const at = e.layers[layer];
  if (!at) return '';
  // An argument and a result sharded alike share their function's line: each line once.
  const all = [...new Set(at.sites.map((s) => s.line))];
  return `${num(at.count)} (line${all.length > 1 ? 's' : ''} ${all.slice(0, 8).join(', ')}${all.length > 8 ? ', …' : ''})`;
}

/**
 * The card and catalogue of one module as Markdown: the card's table, then the catalogue's table
 * (count and lines per layer, bytes of the last layer that has the entry), then, when given, what it
 * has that `against` lacks. `title` heads it (e.g. the module's name). Dump text is escaped for
 * table cells by `escape` (by default `|`, `\` and line breaks only; the room export passes its
 * inert-text escape).
 */
export function catalogueMarkdown(title: string, card: LayerCard, entries: readonly CatalogueEntry[], against?: { readonly title: string; readonly comparison: CatalogueComparison }, escape: (s: string) => string = plainCell): string {
  const cell = escape;
  const out: string[] = [`# Catalogue: ${cell(title)}`, '', '## lower() vs compile()', ''];
  const cats = Object.values(OpCategory).filter((c) => card.layers.some((l) => l.opsByCategory[c]));
  out.push(`| layer | lines | bytes | × lines | × bytes | ops | ${cats.join(' | ')} | fusions | custom calls | collectives |`);
  out.push(`|${'---|'.repeat(9 + cats.length)}`);
  for (const l of card.layers) {
    const kinds = Object.entries(l.fusionKinds).map(([k, n]) => `${k} ${n}`).join(', ');
    out.push(`| ${LAYER_TITLES[l.layer]} | ${num(l.lines)} | ${num(l.bytes)} | ${l.linesRatio.toFixed(2)} | ${l.bytesRatio.toFixed(2)} | ${num(l.ops)} | ${cats.map((c) => num(l.opsByCategory[c] ?? 0)).join(' | ')} | ${num(l.fusions)}${kinds ? ` (${kinds})` : ''} | ${num(l.customCalls)} | ${num(l.collectives)} |`);
  }
  const layers = CATALOGUE_LAYERS.filter((l) => entries.some((e) => e.layers[l]));
  out.push('', '## Operators', '');
  if (entries.length === 0) out.push('Nothing to catalogue.');
  else {
    out.push(`| category | entry | bytes | ${layers.map((l) => LAYER_TITLES[l]).join(' | ')} |`, `|${'---|'.repeat(3 + layers.length)}`);
    for (const e of entries) {
      const last = [...layers].reverse().find((l) => e.layers[l]);
      out.push(`| ${e.category} | ${cell(e.label)} | ${num(last ? (e.layers[last]?.bytes ?? 0) : 0)} | ${layers.map((l) => where(e, l)).join(' | ')} |`);
    }
  }
  if (against) {
    const { comparison: c } = against;
    const list = (es: readonly CatalogueEntry[]) => (es.length ? es.map((e) => `- ${e.category}: ${cell(e.label)} (${num(entryCount(e))})`) : ['- nothing']);
    out.push('', `## Against ${cell(against.title)}`, '', `Only in ${cell(title)}:`, ...list(c.onlyHere), '', `Only in ${cell(against.title)}:`, ...list(c.onlyThere));
    if (c.changed.length) out.push('', 'In both, counts differ:', ...c.changed.map((d) => `- ${d.category}: ${cell(d.label)}: ${num(d.here)} here, ${num(d.there)} there`));
  }
  return out.join('\n') + '\n';
}
