import type { DocumentMeta } from '@seam/shared/model';

/** What each dump kind is called on a capture card. */
const KIND_NAMES: Readonly<Record<string, string>> = {
  jaxpr: 'jaxpr',
  stablehlo: 'StableHLO',
  hlo: 'HLO',
  'hlo-opt': 'optimized HLO',
  trace: 'trace',
  'buffer-assignment': 'buffer assignment',
  'memory-report': 'memory report',
};

/**
 * The name of one of a capture's documents on its card, by what it is: `jaxpr`, `StableHLO`,
 * `HLO`, `optimized HLO`, `trace`; a text artifact by its title without the entry's prefix
 * (`mlp: cost analysis` → `cost analysis`, `memory analysis`, `per-op device time`).
 */
export function artifactName(d: Pick<DocumentMeta, 'kind' | 'title'>, entry: string): string {
  const named = KIND_NAMES[d.kind];
  if (named) return named;
  const prefix = `${entry}: `;
  const rest = d.title.startsWith(prefix) ? d.title.slice(prefix.length) : d.title;
  return rest.trim() || d.kind;
}
