import type { EventBlock } from './codec';
import type { TraceEvent } from './types';

/** A window of one track's events: those overlapping [fromUs, toUs], at most `limit`. */
export interface EventWindow {
  readonly track: number;
  readonly fromUs: number;
  readonly toUs: number;
  /** How many events overlap the window. */
  readonly total: number;
  /** Whether `events` holds fewer than `total` (the longest event of each of `limit` equal time buckets). */
  readonly downsampled: boolean;
  readonly events: readonly TraceEvent[];
}

/**
 * The events of one track's blocks (each sorted by start) that overlap [fromUs, toUs]. When more
 * than `limit` do, the window is cut into `limit` equal time buckets and each keeps its longest
 * event (by start bucket), so a timeline drawn from it still shows what dominates each pixel.
 */
export function eventWindow(track: number, blocks: readonly EventBlock[], strings: readonly string[], fromUs: number, toUs: number, limit: number): EventWindow {
  const hits: { b: EventBlock; i: number }[] = [];
  for (const b of blocks) {
    for (let i = 0; i < b.start.length; i++) {
      const s = b.start[i]!;
      if (s > toUs) break;
      if (s + b.dur[i]! >= fromUs) hits.push({ b, i });
    }
  }
  let kept = hits;
  if (hits.length > limit) {
    const width = (toUs - fromUs) / limit || 1;
    const best = new Map<number, { b: EventBlock; i: number }>();
    for (const h of hits) {
      const k = Math.min(limit - 1, Math.max(0, Math.floor((h.b.start[h.i]! - fromUs) / width)));
      const cur = best.get(k);
      if (!cur || h.b.dur[h.i]! > cur.b.dur[cur.i]!) best.set(k, h);
    }
    kept = [...best.keys()].sort((a, b) => a - b).map((k) => best.get(k)!);
  }
  const events = kept.map(({ b, i }): TraceEvent => {
    const op = b.op[i]!;
    const mod = b.module[i]!;
    return {
      track, startUs: b.start[i]!, durUs: b.dur[i]!, name: strings[b.name[i]!] ?? '',
      ...(op >= 0 ? { op: strings[op] ?? '' } : {}),
      ...(mod >= 0 ? { module: strings[mod] ?? '' } : {}),
    };
  });
  return { track, fromUs, toUs, total: hits.length, downsampled: hits.length > limit, events };
}
