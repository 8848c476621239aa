import { describe, expect, it } from 'vitest';
import { isFastScroll } from './scroll-speed';

describe('isFastScroll', () => {
  it('counts a flick or a dragged scrollbar, in either direction', () => {
    // A wheel flick: 360 px a frame at 60 frames a second, about 19 lines a frame.
    expect(isFastScroll(16.7, 19)).toBe(true);
    expect(isFastScroll(16.7, -19)).toBe(true);
    // A dragged scrollbar through a long dump: hundreds of lines a frame.
    expect(isFastScroll(16.7, 126)).toBe(true);
  });

  it('does not count reading speed, a single jump after a pause, or steps faster than a frame as more than a frame', () => {
    // Arrow keys held down: a line a frame.
    expect(isFastScroll(16.7, 1)).toBe(false);
    // Going to a line or a match after a pause: far, but not part of a scroll.
    expect(isFastScroll(2000, 5000)).toBe(false);
    expect(isFastScroll(250, 5000)).toBe(false);
    // Two scroll events in one millisecond are judged as a frame apart: 3 lines is not fast.
    expect(isFastScroll(1, 3)).toBe(false);
    expect(isFastScroll(1, 4)).toBe(true);
  });
});
