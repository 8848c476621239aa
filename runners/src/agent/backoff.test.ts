import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('stays within [cap/2, cap] for cap = min(max, base·2ⁿ)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 600_000 }), fc.nat(100), fc.double({ min: 0, max: 1, noNaN: true }), (base, max, n, r) => {
      const cap = Math.min(max, base * 2 ** Math.min(n, 30));
      const d = backoffDelay({ baseMs: base, maxMs: max }, n, () => r);
      return d >= Math.floor(cap / 2) && d <= Math.ceil(cap);
    }));
  });

  it('grows with the attempt number until the cap', () => {
    const b = { baseMs: 100, maxMs: 1000 };
    const top = (n: number) => backoffDelay(b, n, () => 1);
    expect([0, 1, 2, 3, 4, 10].map(top)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});
