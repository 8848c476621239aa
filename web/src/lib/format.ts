import type { DocumentKind } from '@seam/shared/model';

/** Bytes for people, e.g. 41 KB, 2.1 MB. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The short badge of a document kind, e.g. `HLO·opt`. */
export function kindBadge(kind: DocumentKind | string): string {
  switch (kind) {
    case 'jaxpr':
      return 'JAXPR';
    case 'stablehlo':
      return 'SHLO';
    case 'hlo':
      return 'HLO';
    case 'hlo-opt':
      return 'HLO·opt';
    case 'trace':
      return 'TRACE';
    case 'buffer-assignment':
      return 'BUFS';
    case 'memory-report':
      return 'MEM';
    default:
      return 'TEXT';
  }
}
