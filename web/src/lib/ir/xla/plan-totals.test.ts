import { describe, expect, it } from 'vitest';
import { totalsDiffer } from './plan-totals';

describe('whether the memory-usage report’s total is worth showing beside the buffer assignment’s', () => {
  it('is not when they agree, or differ by the report’s rounding', () => {
    expect(totalsDiffer(29644, 29644)).toBe(false);
    expect(totalsDiffer(415252540, 415252540 + 4_000_000)).toBe(false);
  });

  it('is when they differ by more than 1%, either way', () => {
    expect(totalsDiffer(29644, 16384)).toBe(true);
    expect(totalsDiffer(16384, 29644)).toBe(true);
    expect(totalsDiffer(0, 4)).toBe(true);
  });
});
