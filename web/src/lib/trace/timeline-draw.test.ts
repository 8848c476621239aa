import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceTrack } from '@seam/shared/trace';
import { drawTimeline, layoutRows, LABEL_WIDTH } from './timeline-draw';

/** A 2D context that only counts the rects filled in the plot. */
function countingContext(): { ctx: CanvasRenderingContext2D; rects: () => number } {
  let rects = 0;
  const ctx = new Proxy({}, {
    get: (_, key) => (key === 'fillRect' ? (x: number, _y: number, w: number) => { if (x >= LABEL_WIDTH && w <= 2) rects++; } : key === 'measureText' ? () => ({ width: 10 }) : () => {}),
    set: () => true,
  }) as unknown as CanvasRenderingContext2D;
  return { ctx, rects: () => rects };
}

const track = { id: 1, kind: 'device', process: '/device:GPU:0', name: 'XLA Ops', sortIndex: 0, events: 10_000 } as unknown as TraceTrack;
const events: TraceEvent[] = Array.from({ length: 10_000 }, (_, i) => ({ track: 1, startUs: i * 0.1, durUs: 0.05, name: `fusion.${i % 7}`, op: `fusion.${i % 7}` }) as TraceEvent);
const palette = { bg: '#fff', fg: '#000', muted: '#888', border: '#ccc', selection: '#f00' };

describe('drawTimeline', () => {
  it('draws one rect per pixel column of a track for events under a pixel wide', () => {
    const { ctx, rects } = countingContext();
    const { rows, height } = layoutRows([track]);
    drawTimeline(ctx, { width: LABEL_WIDTH + 500, height, dpr: 1, originUs: 0, view: { fromUs: 0, toUs: 1000 }, rows, events, hover: null, selection: null, palette });
    expect(rects()).toBeLessThanOrEqual(501);
    expect(rects()).toBeGreaterThanOrEqual(499);
  });

  it('still draws, and counts, every event of the highlighted op', () => {
    const { ctx } = countingContext();
    const { rows, height } = layoutRows([track]);
    const lit = drawTimeline(ctx, { width: LABEL_WIDTH + 500, height, dpr: 1, originUs: 0, view: { fromUs: 0, toUs: 1000 }, rows, events, hover: null, selection: null, palette, highlight: 'fusion.3' });
    expect(lit).toBe(events.filter((e) => e.op === 'fusion.3').length);
  });
});
