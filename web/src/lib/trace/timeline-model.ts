import type { TraceTrack, WindowColumns } from '@seam/shared/trace';

/** A visible time range of the timeline, in microseconds. */
export interface TimeRange {
  readonly fromUs: number;
  readonly toUs: number;
}

/** The narrowest range the timeline zooms to: 10 ns. */
const MIN_SPAN_US = 0.01;

/** The order track kinds are drawn in, top down. */
const KIND_ORDER = { device: 0, stream: 1, host: 2, other: 3 } as const;

/** Tracks with events, grouped by kind (devices, streams, host threads, others), each group in the trace's own order. */
export function orderTracks(tracks: readonly TraceTrack[]): TraceTrack[] {
  return tracks.filter((t) => t.events > 0).sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.process.localeCompare(b.process) || a.sortIndex - b.sortIndex || a.id - b.id);
}

/** `range` kept inside `bounds` and no narrower than {@link MIN_SPAN_US}, its span kept where it fits. */
export function clampRange(range: TimeRange, bounds: TimeRange): TimeRange {
  const full = bounds.toUs - bounds.fromUs;
  const span = Math.min(full, Math.max(MIN_SPAN_US, range.toUs - range.fromUs));
  const from = Math.min(Math.max(range.fromUs, bounds.fromUs), bounds.toUs - span);
  return { fromUs: from, toUs: from + span };
}

/** Zooms by `factor` (below 1 zooms in) keeping time `atUs` where it is on screen. */
export function zoomAround(range: TimeRange, atUs: number, factor: number, bounds: TimeRange): TimeRange {
  return clampRange({ fromUs: atUs - (atUs - range.fromUs) * factor, toUs: atUs + (range.toUs - atUs) * factor }, bounds);
}

/** Moves the range by `deltaUs`, stopping at the bounds. */
export function panBy(range: TimeRange, deltaUs: number, bounds: TimeRange): TimeRange {
  return clampRange({ fromUs: range.fromUs + deltaUs, toUs: range.toUs + deltaUs }, bounds);
}

/**
 * The window to fetch for a visible range: the range widened by half a span each side and snapped
 * to a grid of quarter spans (of a power-of-two span), so that small pans and zooms ask for the
 * same window again and hit the cache.
 */
export function fetchWindow(range: TimeRange, bounds: TimeRange): TimeRange {
  const span = range.toUs - range.fromUs;
  const grid = Math.pow(2, Math.ceil(Math.log2(Math.max(span, MIN_SPAN_US)))) / 4;
  const from = Math.max(bounds.fromUs, Math.floor((range.fromUs - span / 2) / grid) * grid);
  const to = Math.min(bounds.toUs, Math.ceil((range.toUs + span / 2) / grid) * grid);
  return { fromUs: from, toUs: Math.max(from, to) };
}

/** What a selected time range holds: its events, each track's busy time, and the ops that take most of it. */
export interface RangeStats {
  readonly events: number;
  readonly busy: readonly { readonly track: number; readonly us: number }[];
  readonly ops: readonly { readonly op: string; readonly module?: string; readonly us: number; readonly count: number }[];
}

/**
 * Statistics of `range` over the events of `data` (each track's sorted by start): events overlapping it, busy
 * time per track (the union of its events clipped to the range, so nested events count once), and
 * op time clipped to the range, largest first (at most `topOps`).
 */
export function rangeStats(data: WindowColumns | null, range: TimeRange, topOps = 5): RangeStats {
  let count = 0;
  const spans = new Map<number, [number, number][]>();
  const ops = new Map<string, { op: string; module?: string; us: number; count: number }>();
  for (const t of data?.tracks ?? []) {
    for (let i = 0; i < t.start.length; i++) {
      const s = t.start[i]!;
      if (s > range.toUs) break;
      const a = Math.max(s, range.fromUs);
      const b = Math.min(s + t.dur[i]!, range.toUs);
      if (b < a) continue;
      count++;
      const list = spans.get(t.track) ?? [];
      list.push([a, b]);
      spans.set(t.track, list);
      const op = t.op[i]! >= 0 ? data!.strings[t.op[i]!] : undefined;
      if (!op) continue;
      const module = t.module[i]! >= 0 ? data!.strings[t.module[i]!] : undefined;
      const key = `${module ?? ''}/${op}`;
      const o = ops.get(key) ?? { op, ...(module ? { module } : {}), us: 0, count: 0 };
      o.us += b - a;
      o.count++;
      ops.set(key, o);
    }
  }
  const busy = [...spans].map(([track, list]) => {
    list.sort((x, y) => x[0] - y[0]);
    let us = 0;
    let end = -Infinity;
    for (const [a, b] of list) {
      if (b > end) us += b - Math.max(a, end);
      end = Math.max(end, b);
    }
    return { track, us };
  });
  return { events: count, busy: busy.sort((x, y) => y.us - x.us), ops: [...ops.values()].sort((x, y) => y.us - x.us).slice(0, topOps) };
}

/** Microseconds for people: `850 ns`, `12.4 µs`, `3.41 ms`, `1.20 s`. */
export function formatUs(us: number): string {
  const a = Math.abs(us);
  // Sums of doubles leave -1e-10 where 0 was meant: never print "-0 ns".
  if (a < 0.0005) return '0 ns';
  if (a < 1) return `${(us * 1000).toFixed(0)} ns`;
  if (a < 1000) return `${us.toFixed(a < 10 ? 2 : 1)} µs`;
  if (a < 1e6) return `${(us / 1000).toFixed(2)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

/**
 * A number for people with thousands grouped and `digits` decimals, as `toLocaleString('en-US')`
 * writes it (`1,000,000`, `12.5`), without `Intl`: the first number format a page makes costs a
 * hundred milliseconds or more, on the way to the trace's first paint.
 */
export function formatCount(n: number, digits = 0): string {
  const fixed = Math.abs(n).toFixed(digits);
  const [int, frac] = fixed.split('.');
  const sign = n < 0 ? '-' : '';
  return `${sign}${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`;
}
