import type { Limits } from '../config';
import { TokenBucket } from './rate';
import { readUpdateHeaders, TooManyItems, type UpdateHeaders } from './update-headers';

/** What an update costs against a connection's item budget: within it, too big alone, or over the rate. */
export const ItemVerdict = { ok: 'ok', tooManyInUpdate: 'too-many-in-update', overRate: 'over-rate' } as const;
export type ItemVerdict = (typeof ItemVerdict)[keyof typeof ItemVerdict];

/**
 * One connection's budget of Yjs items: structs plus deleted ranges, as the update's headers say,
 * at most `itemsPerUpdate` in one update and `itemsPerSecond` sustained (bursts of `itemsBurst`).
 * The message rate limit counts messages; this counts the work inside them, which is what costs
 * the server time and memory when it applies an update. Counting stops at the per-update limit,
 * so a flood is refused after reading no more than the limit.
 */
export class ItemBudget {
  private readonly bucket: TokenBucket;
  private readonly perUpdate: number;

  constructor(limits: Pick<Limits, 'itemsPerUpdate' | 'itemsPerSecond' | 'itemsBurst'>, now?: () => number) {
    this.perUpdate = limits.itemsPerUpdate;
    this.bucket = new TokenBucket(limits.itemsPerSecond, limits.itemsBurst, now);
  }

  /**
   * Counts the items of `update` and takes them from the budget. Throws `MalformedUpdate` for bytes
   * that are not an update (the caller treats that as a malformed message).
   */
  charge(update: Uint8Array): ItemVerdict {
    return this.read(update).verdict;
  }

  /**
   * `charge`, also handing back the headers it read when the update is within the budget, so that
   * the guard need not read them again.
   */
  read(update: Uint8Array): { verdict: typeof ItemVerdict.ok; headers: UpdateHeaders } | { verdict: Exclude<ItemVerdict, 'ok'> } {
    let headers: UpdateHeaders;
    try {
      headers = readUpdateHeaders(update, this.perUpdate);
    } catch (err) {
      if (err instanceof TooManyItems) return { verdict: ItemVerdict.tooManyInUpdate };
      throw err;
    }
    let count = headers.structs.length;
    for (const ranges of headers.ds.values()) count += ranges.length;
    return this.bucket.take(count) ? { verdict: ItemVerdict.ok, headers } : { verdict: ItemVerdict.overRate };
  }
}
