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
  /** Calls `hit` with each overlapping event (block, index), in order; a window over a million events makes no object per event. */
  const scan = (hit: (b: EventBlock, i: number) => void): void => {
    for (const b of blocks) {
      for (let i = 0; i < b.start.length; i++) {
        const s = b.start[i]!;
        if (s > toUs) break;
        if (s + b.dur[i]! >= fromUs) hit(b, i);
      }
    }
  };
  let total = 0;
  scan(() => total++);
  const events: TraceEvent[] = [];
  const eventOf = (b: EventBlock, i: number): TraceEvent => {
    const op = b.op[i]!;
    const mod = b.module[i]!;
    return {
      track, startUs: b.start[i]!, durUs: b.dur[i]!, name: strings[b.name[i]!] ?? '',
      ...(op >= 0 ? { op: strings[op] ?? '' } : {}),
      ...(mod >= 0 ? { module: strings[mod] ?? '' } : {}),
    };
  };
  if (total <= limit) scan((b, i) => events.push(eventOf(b, i)));
  else {
    const width = (toUs - fromUs) / limit || 1;
    const bestBlock: (EventBlock | undefined)[] = new Array<EventBlock | undefined>(limit);
    const bestIndex = new Int32Array(limit);
    scan((b, i) => {
      const k = Math.min(limit - 1, Math.max(0, Math.floor((b.start[i]! - fromUs) / width)));
      const cur = bestBlock[k];
      if (!cur || b.dur[i]! > cur.dur[bestIndex[k]!]!) {
        bestBlock[k] = b;
        bestIndex[k] = i;
      }
    });
    for (let k = 0; k < limit; k++) {
      const b = bestBlock[k];
      if (b) events.push(eventOf(b, bestIndex[k]!));
    }
  }
  return { track, fromUs, toUs, total, downsampled: total > limit, events };
}
