import { describe, expect, it } from 'vitest';
import type { Annotation } from '@seam/shared/model';
import type { TraceEvent, TraceTrack } from '@seam/shared/trace';
import { layoutRows, LABEL_WIDTH } from './timeline-draw';
import { columnsOf } from './test-columns';
import { MAX_MARKERS, opMarkers, revealView, traceMarks } from './trace-marks';

const author = { id: 'u', name: 'Ada', color: '#123456' };
const ann = (id: string, docId: string, trace?: Annotation['trace']): Annotation => ({
  id, docId, from: 0, to: 0, quote: { prefix: '', exact: '', suffix: '' }, kind: 'note', body: '', author, createdAt: 1, resolved: false, replies: [], ...(trace ? { trace } : {}),
});
const track: TraceTrack = { id: 0, kind: 'device', process: '/device:CPU:0', name: 'XLA Ops', sortIndex: 0, events: 3, startUs: 0, endUs: 1 };
const ev = (startUs: number, durUs: number, op?: string, module = 'jit_f'): TraceEvent => ({ track: 0, startUs, durUs, name: op ?? 'x', ...(op ? { op, module } : {}) });

describe('annotations drawn on a trace', () => {
  it('keeps the open trace’s trace annotations, ranges moved onto the trace clock', () => {
    const list = [
      ann('r', 't1', { type: 'range', fromUs: 10, toUs: 20, track: 'XLA Ops' }),
      ann('o', 't1', { type: 'op', op: 'fusion.3', module: 'jit_f' }),
      ann('other', 't2', { type: 'range', fromUs: 1, toUs: 2 }),
      ann('dump', 't1'),
    ];
    expect(traceMarks(list, 't1', 1000)).toEqual({
      ranges: [{ id: 'r', kind: 'note', fromUs: 1010, toUs: 1020, track: 'XLA Ops', resolved: false }],
      ops: [{ id: 'o', kind: 'note', op: 'fusion.3', module: 'jit_f' }],
    });
  });

  it('puts a marker on each visible event of an annotated op, in its module, on its row', () => {
    const { rows } = layoutRows([track]);
    const view = { fromUs: 0, toUs: 100 };
    const width = LABEL_WIDTH + 1000;
    const events = [ev(10, 5, 'fusion.3'), ev(20, 5, 'dot'), ev(50, 10, 'fusion.3'), ev(60, 1, 'fusion.3', 'jit_g'), ev(500, 1, 'fusion.3')];
    const m = opMarkers(columnsOf(events), [{ id: 'o', kind: 'spill', op: 'fusion.3', module: 'jit_f' }], view, width, rows);
    expect(m.map((x) => [x.x, x.w])).toEqual([[LABEL_WIDTH + 100, 50], [LABEL_WIDTH + 500, 100]]);
    expect(m[0]).toMatchObject({ id: 'o', kind: 'spill', y: rows[1]!.y + 1 });
    expect(opMarkers(columnsOf(events), [], view, width, rows)).toEqual([]);
    const many = Array.from({ length: MAX_MARKERS + 50 }, (_, i) => ev(i / 10, 0.05, 'fusion.3'));
    expect(opMarkers(columnsOf(many), [{ id: 'o', kind: 'note', op: 'fusion.3', module: '' }], view, width, rows)).toHaveLength(MAX_MARKERS);
  });

  it('reveals a range with a margin, and an op across its loaded events', () => {
    expect(revealView({ type: 'range', fromUs: 100, toUs: 200 }, 1000, null)).toEqual({ fromUs: 1090, toUs: 1210 });
    expect(revealView({ type: 'op', op: 'fusion.3', module: 'jit_f' }, 0, columnsOf([ev(10, 5, 'fusion.3'), ev(100, 10, 'fusion.3'), ev(300, 1, 'dot')]))).toEqual({ fromUs: 0, toUs: 120 });
    expect(revealView({ type: 'op', op: 'absent', module: 'jit_f' }, 0, columnsOf([ev(10, 5, 'fusion.3')]))).toBeNull();
  });
});
