import { describe, expect, it } from 'vitest';
import { ParameterNumbers } from './parameter-numbers';

describe('ParameterNumbers', () => {
  it('tells a number seen again in the same computation, and forgets them all for the next', () => {
    const n = new ParameterNumbers();
    n.forget();
    expect([0, 1, 0, 1000, 1000, 70_000, 70_000].map((x) => n.note(x))).toEqual([false, false, true, false, true, false, true]);
    n.forget();
    expect([0, 1000, 70_000, 0].map((x) => n.note(x))).toEqual([false, false, false, true]);
  });
});
