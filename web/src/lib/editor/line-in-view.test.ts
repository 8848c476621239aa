import { describe, expect, it } from 'vitest';
import { lineInView } from './follow';

describe('whether a counterpart line needs scrolling to', () => {
  it('is in view only when wholly inside the visible span', () => {
    expect(lineInView(100, 117, 0, 700)).toBe(true);
    expect(lineInView(0, 17, 0, 700)).toBe(true);
    expect(lineInView(683, 700, 0, 700)).toBe(true);
  });
  it('is out of view when above, below, or cut by an edge', () => {
    expect(lineInView(-40, -23, 0, 700)).toBe(false);
    expect(lineInView(900, 917, 0, 700)).toBe(false);
    expect(lineInView(-5, 12, 0, 700)).toBe(false);
    expect(lineInView(690, 707, 0, 700)).toBe(false);
  });
});
