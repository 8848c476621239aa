import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceTrack } from '@seam/shared/trace';
import { drawTimeline, eventAt, fillsOf, layoutRows, LABEL_WIDTH } from './timeline-draw';
import { columnsOf } from './test-columns';

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
const data = columnsOf(events);
const fills = fillsOf(data.strings);
const palette = { bg: '#fff', fg: '#000', muted: '#888', border: '#ccc', selection: '#f00' };

describe('drawTimeline', () => {
  it('draws one rect per pixel column of a track for events under a pixel wide', () => {
    const { ctx, rects } = countingContext();
    const { rows, height } = layoutRows([track]);
    drawTimeline(ctx, { width: LABEL_WIDTH + 500, height, dpr: 1, originUs: 0, view: { fromUs: 0, toUs: 1000 }, rows, data, fills, hover: null, selection: null, palette });
    expect(rects()).toBeLessThanOrEqual(501);
    expect(rects()).toBeGreaterThanOrEqual(499);
  });

  it('still draws, and counts, every event of the highlighted op', () => {
    const { ctx } = countingContext();
    const { rows, height } = layoutRows([track]);
    const lit = drawTimeline(ctx, { width: LABEL_WIDTH + 500, height, dpr: 1, originUs: 0, view: { fromUs: 0, toUs: 1000 }, rows, data, fills, hover: null, selection: null, palette, highlight: 'fusion.3' });
    expect(lit).toBe(events.filter((e) => e.op === 'fusion.3').length);
  });

  it('finds the innermost event under the pointer, its strings resolved', () => {
    const { rows } = layoutRows([track]);
    const nested = columnsOf([{ track: 1, startUs: 0, durUs: 100, name: 'step' }, { track: 1, startUs: 40, durUs: 20, name: 'fusion.1', op: 'fusion.1', module: 'jit_f' }]);
    const o = { width: LABEL_WIDTH + 100, view: { fromUs: 0, toUs: 100 }, rows, data: nested };
    const y = rows[1]!.y + 5;
    expect(eventAt(LABEL_WIDTH + 50, y, o)).toEqual({ track: 1, startUs: 40, durUs: 20, name: 'fusion.1', op: 'fusion.1', module: 'jit_f' });
    expect(eventAt(LABEL_WIDTH + 10, y, o)).toEqual({ track: 1, startUs: 0, durUs: 100, name: 'step' });
    expect(eventAt(LABEL_WIDTH + 10, 0, o)).toBeNull();
    expect(eventAt(LABEL_WIDTH + 10, y, { ...o, data: null })).toBeNull();
  });
});
