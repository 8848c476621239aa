import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Throttle } from './throttle';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('Throttle', () => {
  it('runs at once after a quiet spell, and once at the end of a spell for every request inside it', () => {
    const runs: number[] = [];
    const t = new Throttle(100, () => runs.push(Date.now()), () => Date.now());
    const start = Date.now();
    t.request();
    expect(runs).toEqual([start]);
    for (let i = 0; i < 40; i++) {
      vi.advanceTimersByTime(2);
      t.request();
    }
    expect(runs).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(runs).toEqual([start, start + 100]);
    // Nothing asked since: no run at the end of that spell.
    vi.advanceTimersByTime(500);
    expect(runs).toHaveLength(2);
    t.request();
    expect(runs).toEqual([start, start + 100, start + 680]);
  });

  it('drops a pending run when cancelled', () => {
    const fn = vi.fn();
    const t = new Throttle(100, fn);
    t.request();
    t.request();
    t.cancel();
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
