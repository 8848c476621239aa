import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { TokenBucket } from '../sync/rate';

/** Most addresses remembered; the oldest are forgotten first. */
const MAX_ADDRESSES = 10_000;

/** The client's address, or `unknown` when the request did not come over a socket (tests). */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A token bucket per client address: `perMinute` requests a minute, bursts of the same size. */
export class AddressLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly perMinute: number) {}

  /** Takes one token for `address`; false when it is out of tokens. */
  take(address: string): boolean {
    let bucket = this.buckets.get(address);
    if (!bucket) {
      bucket = new TokenBucket(this.perMinute / 60, this.perMinute);
      this.buckets.set(address, bucket);
      for (const key of this.buckets.keys()) {
        if (this.buckets.size <= MAX_ADDRESSES) break;
        this.buckets.delete(key);
      }
    }
    return bucket.take();
  }
}
