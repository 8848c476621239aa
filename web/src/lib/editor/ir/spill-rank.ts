/** Spills smaller than this share of the largest are drawn subdued, whatever their rank. */
export const PROMINENT_SHARE = 1 / 8;
/** At most this many ranks are drawn prominent: past them a spill is detail, however large. */
export const MAX_PROMINENT_RANK = 5;

/** How much one spill matters next to the others of its module. */
export interface SpillRank {
  /** 1 for the largest; equal sizes share a rank (`#1, #1, #1, #4`). */
  readonly rank: number;
  /** Its bytes as a share of the largest spill's, in (0, 1]. */
  readonly share: number;
  /** Whether it is among the few that matter: rank ≤ {@link MAX_PROMINENT_RANK} and share ≥ {@link PROMINENT_SHARE}. */
  readonly prominent: boolean;
}

/**
 * Ranks spills by size, largest first, in the order given: the attention dump's three S×S buffers
 * of 256 MiB are `#1` and prominent, its 128 MiB one `#4` (half the largest) prominent too, and its
 * 16 KiB reduce `#14`, subdued.
 */
export function rankSpills(spills: readonly { readonly bytes: number }[]): SpillRank[] {
  const largest = spills.reduce((m, s) => Math.max(m, s.bytes), 0);
  const sorted = spills.map((s) => s.bytes).sort((a, b) => b - a);
  return spills.map((s) => {
    // Competition ranking: one more than the number of strictly larger spills.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! > s.bytes) lo = mid + 1;
      else hi = mid;
    }
    const rank = lo + 1;
    const share = largest > 0 ? s.bytes / largest : 0;
    return { rank, share, prominent: rank <= MAX_PROMINENT_RANK && share >= PROMINENT_SHARE };
  });
}
