/** Reconnect delays: exponential from `baseMs`, capped at `maxMs`, with full jitter. */
export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Default reconnect backoff: 0.5 s doubling up to 30 s. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000 };

/**
 * The delay before reconnect attempt `n` (0-based): uniform in [cap/2, cap] where
 * cap = min(maxMs, baseMs·2ⁿ), so runners that lost the server together do not return together
 * and none retries at once in a tight loop.
 */
export function backoffDelay(b: Backoff, n: number, random: () => number = Math.random): number {
  const cap = Math.min(b.maxMs, b.baseMs * 2 ** Math.min(n, 30));
  return Math.round(cap / 2 + random() * (cap / 2));
}
