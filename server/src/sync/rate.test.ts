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

  it('takes many tokens at once, or none when fewer are left', () => {
    let now = 0;
    const b = new TokenBucket(100, 1000, () => now);
    expect(b.take(600)).toBe(true);
    expect(b.take(500)).toBe(false);
    expect(b.take(400)).toBe(true);
    now = 1000;
    expect(b.take(101)).toBe(false);
    expect(b.take(100)).toBe(true);
  });
});
