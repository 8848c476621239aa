import type { OpAggregate, TraceSummary } from '@seam/shared/trace';
import type { HloFacts } from './hlo-facts';

/** One row of the op table: a trace's per-op aggregate joined to what the HLO says of that op. */
export interface OpRow extends OpAggregate {
  /** Of the steps' time when the trace marks steps, else of all op time; 0–1. */
  readonly share: number;
  readonly bytes?: number;
  /** Bytes per second: bytes moved over the mean time of one occurrence. */
  readonly bandwidth?: number;
  readonly flops?: number;
  /** FLOPs per second over the mean time. */
  readonly flopRate?: number;
  readonly hlo?: HloFacts;
}

/** The columns the op table sorts by. */
export const OpColumn = { op: 'op', module: 'module', count: 'count', totalUs: 'totalUs', meanUs: 'meanUs', share: 'share', bytes: 'bytes', bandwidth: 'bandwidth', flopRate: 'flopRate' } as const;
export type OpColumn = (typeof OpColumn)[keyof typeof OpColumn];

/** The time `share` is taken of: the steps' total when the trace marks steps, else all op time. */
export function shareBase(summary: TraceSummary): { readonly us: number; readonly of: 'step' | 'op time' } {
  const steps = summary.steps.reduce((a, s) => a + s.durUs, 0);
  return steps > 0 ? { us: steps, of: 'step' } : { us: summary.opTotalUs, of: 'op time' };
}

/** The op table's rows: each aggregate with its share, and its bytes, bandwidth and FLOP/s where `facts` knows the op. */
export function opRows(ops: readonly OpAggregate[], summary: TraceSummary, facts: (op: OpAggregate) => HloFacts | undefined): OpRow[] {
  const base = shareBase(summary).us;
  return ops.map((o) => {
    const hlo = facts(o);
    const perS = (n: number | undefined) => (n !== undefined && o.meanUs > 0 ? n / (o.meanUs * 1e-6) : undefined);
    const bandwidth = perS(hlo?.bytes);
    const flopRate = perS(hlo?.flops);
    return {
      ...o, share: base > 0 ? o.totalUs / base : 0,
      ...(hlo ? { hlo } : {}),
      ...(hlo?.bytes !== undefined ? { bytes: hlo.bytes } : {}),
      ...(hlo?.flops !== undefined ? { flops: hlo.flops } : {}),
      ...(bandwidth !== undefined ? { bandwidth } : {}),
      ...(flopRate !== undefined ? { flopRate } : {}),
    };
  });
}

/**
 * The rows whose op name contains `query` (case-insensitive), sorted by `column`; rows without a
 * value in that column (no HLO facts) go last either way, and ties keep the longest total first.
 */
export function viewRows(rows: readonly OpRow[], query: string, column: OpColumn, descending: boolean): OpRow[] {
  const q = query.trim().toLowerCase();
  const kept = q ? rows.filter((r) => r.op.toLowerCase().includes(q)) : [...rows];
  const dir = descending ? -1 : 1;
  return kept.sort((a, b) => {
    const x = a[column];
    const y = b[column];
    if (x === undefined || y === undefined) return x === y ? b.totalUs - a.totalUs : x === undefined ? 1 : -1;
    const c = typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number);
    return c !== 0 ? c * dir : b.totalUs - a.totalUs;
  });
}
