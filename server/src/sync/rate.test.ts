import { describe, expect, it } from 'vitest';
import { TokenBucket } from './rate';

describe('TokenBucket', () => {
  it('allows a burst, refuses beyond it, and refills at the rate', () => {
    let now = 0;
    const b = new TokenBucket(10, 3, () => now);
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
    now = 100;
    expect([b.take(), b.take()]).toEqual([true, false]);
    now = 10_000;
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
  });
});
