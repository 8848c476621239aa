import { quantile } from '../table';
import type { LoadProcessUsage } from './load-meter';

/** `SEAM_BENCH_QUICK=1`: shrunken loads that check a benchmark works in seconds, not its figures. */
export const QUICK = process.env.SEAM_BENCH_QUICK === '1';

/** Quantiles of a set of latencies, ms. */
export interface Summary {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank quantiles and the maximum of `values` (NaN and -Infinity when empty). */
export function summarize(values: readonly number[]): Summary {
  return {
    count: values.length,
    p50: quantile(values, 0.5),
    p95: quantile(values, 0.95),
    p99: quantile(values, 0.99),
    max: values.reduce((m, v) => Math.max(m, v), -Infinity),
  };
}

/** `seam / reference`, two decimals; `n/a` when either side is missing. */
export function ratio(seam: number | undefined, reference: number | undefined): string {
  if (seam === undefined || reference === undefined || !Number.isFinite(seam) || !Number.isFinite(reference) || reference === 0) return 'n/a';
  return (seam / reference).toFixed(2);
}

/** Bytes as MB with one decimal. */
export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? (bytes / 1024 / 1024).toFixed(1) : 'n/a';
}

/** `met` or `MISSED` for a goal line. */
export function verdict(ok: boolean): string {
  return ok ? 'met' : 'MISSED';
}

/** Close codes as `code×count`, or `none`. */
export function closeList(codes: readonly number[]): string {
  if (codes.length === 0) return 'none';
  const counts = new Map<number, number>();
  for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([c, n]) => `${c}×${n}`).join(' ');
}

/** Event-loop delay p99 of a load process beyond which its own queueing colours the latencies, ms. */
export const SATURATED_LAG_MS = 10;

/**
 * A warning line when a load process was too busy (or starved of CPU by other work on the machine)
 * to timestamp deliveries promptly; `undefined` when every load process kept up.
 */
export function saturation(name: string, loads: readonly LoadProcessUsage[]): string | undefined {
  const worst = loads.reduce((m, l) => Math.max(m, l.loopDelayP99), 0);
  if (worst <= SATURATED_LAG_MS) return undefined;
  return `warning (${name}): a load process lagged ${worst.toFixed(0)} ms at p99 (max ` +
    `${loads.reduce((m, l) => Math.max(m, l.loopDelayMax), 0).toFixed(0)} ms, longest GC pause ${loads.reduce((m, l) => Math.max(m, l.gcMax), 0).toFixed(0)} ms, ` +
    `largest heap ${mb(loads.reduce((m, l) => Math.max(m, l.heapMax), 0))} MB): ` +
    `its latencies include its own queueing, not only the server's`;
}
