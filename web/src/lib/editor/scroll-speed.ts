/**
 * When a scroll counts as fast (a flick, a dragged scrollbar): it moved a quarter of a line per
 * millisecond or more (about 5,000 px a second) since the step before, less than `FAST_MS` earlier.
 * Scrolling at reading speed never does. A fast scroll settles `SETTLE_MS` after its last step.
 */
const FAST_LINES_PER_MS = 0.25;
const FAST_MS = 250;
export const SETTLE_MS = 120;

/** True when moving `lines` lines `gapMs` after the step before is part of a fast scroll. */
export function isFastScroll(gapMs: number, lines: number): boolean {
  return gapMs < FAST_MS && Math.abs(lines) >= FAST_LINES_PER_MS * Math.max(gapMs, 16);
}
