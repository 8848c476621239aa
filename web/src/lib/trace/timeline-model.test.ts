import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceTrack } from '@seam/shared/trace';
import { columnsOf } from './test-columns';
import { clampRange, fetchWindow, formatCount, formatUs, orderTracks, panBy, rangeStats, zoomAround } from './timeline-model';

const bounds = { fromUs: 100, toUs: 1100 };
const track = (id: number, kind: TraceTrack['kind'], process: string, sortIndex: number, events = 1): TraceTrack => ({ id, kind, process, name: `t${id}`, sortIndex, events, startUs: 0, endUs: 1 });
const ev = (track: number, startUs: number, durUs: number, op?: string): TraceEvent => ({ track, startUs, durUs, name: op ?? 'x', ...(op ? { op, module: 'm' } : {}) });

describe('the timeline model', () => {
  it('groups tracks by kind, devices first, and drops empty ones', () => {
    const t = orderTracks([track(0, 'host', '/host:CPU', 2), track(1, 'device', '/device:GPU:0', 0), track(2, 'host', '/host:CPU', 1), track(3, 'stream', '/device:GPU:0', 0), track(4, 'host', 'x', 0, 0)]);
    expect(t.map((x) => x.id)).toEqual([1, 3, 2, 0]);
  });

  it('zooms around a time, keeping it in place, and stays in bounds', () => {
    const z = zoomAround(bounds, 350, 0.5, bounds);
    expect(z).toEqual({ fromUs: 225, toUs: 725 });
    expect((350 - z.fromUs) / (z.toUs - z.fromUs)).toBeCloseTo((350 - 100) / 1000, 9);
    expect(zoomAround(z, 350, 100, bounds)).toEqual(bounds);
    expect(zoomAround(bounds, 500, 1e-9, bounds).toUs - zoomAround(bounds, 500, 1e-9, bounds).fromUs).toBeCloseTo(0.01, 9);
  });

  it('pans up to the edges and no further', () => {
    expect(panBy({ fromUs: 200, toUs: 300 }, 50, bounds)).toEqual({ fromUs: 250, toUs: 350 });
    expect(panBy({ fromUs: 200, toUs: 300 }, -500, bounds)).toEqual({ fromUs: 100, toUs: 200 });
    expect(clampRange({ fromUs: 1050, toUs: 1200 }, bounds)).toEqual({ fromUs: 950, toUs: 1100 });
  });

  it('asks for the same window after a small pan, and a wider one than the view', () => {
    const a = fetchWindow({ fromUs: 400, toUs: 500 }, bounds);
    expect(a.fromUs).toBeLessThanOrEqual(350);
    expect(a.toUs).toBeGreaterThanOrEqual(550);
    expect(fetchWindow({ fromUs: 401, toUs: 501 }, bounds)).toEqual(a);
    expect(fetchWindow(bounds, bounds)).toEqual(bounds);
  });

  it('sums busy time once for nested events and clips ops to the range', () => {
    const s = rangeStats(columnsOf([ev(0, 0, 100), ev(0, 10, 20, 'dot'), ev(0, 150, 100, 'dot'), ev(1, 50, 10, 'add'), ev(1, 500, 10, 'add')]), { fromUs: 20, toUs: 200 });
    expect(s.events).toBe(4);
    expect(s.busy).toEqual([{ track: 0, us: 80 + 50 }, { track: 1, us: 10 }]);
    expect(s.ops).toEqual([{ op: 'dot', module: 'm', us: 10 + 50, count: 2 }, { op: 'add', module: 'm', us: 10, count: 1 }]);
  });

  it('groups thousands as en-US does', () => {
    for (const [n, digits] of [[0, 0], [999, 0], [1000, 0], [1_000_000, 0], [1234567.891, 1], [12.34, 1], [-9876.5, 1], [-0.04, 1], [0.5, 2], [123456789012, 0]] as const) {
      expect(formatCount(n, digits), `${n}`).toBe(n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
    }
  });

  it('writes times for people', () => {
    expect([formatUs(0.85), formatUs(12.44), formatUs(3410), formatUs(1.2e6), formatUs(-1e-10)]).toEqual(['850 ns', '12.4 µs', '3.41 ms', '1.20 s', '0 ns']);
  });
});
