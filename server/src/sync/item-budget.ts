import type { Limits } from '../config';
import { TokenBucket } from './rate';
import { readUpdateHeaders, TooManyItems } from './update-headers';

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
    let count: number;
    try {
      const { structs, ds } = readUpdateHeaders(update, this.perUpdate);
      count = structs.length;
      for (const ranges of ds.values()) count += ranges.length;
    } catch (err) {
      if (err instanceof TooManyItems) return ItemVerdict.tooManyInUpdate;
      throw err;
    }
    return this.bucket.take(count) ? ItemVerdict.ok : ItemVerdict.overRate;
  }
}
