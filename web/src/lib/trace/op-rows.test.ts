import { describe, expect, it } from 'vitest';
import type { OpAggregate, TraceSummary } from '@seam/shared/trace';
import opsJson from '../../../../test/fixtures/gate/attention-cpu/ops.json';
import { opRows, shareBase, viewRows } from './op-rows';

const ops = (opsJson as { name: string; module: string; count: number; totalUs: number; meanUs: number }[]).map(
  (o): OpAggregate => ({ module: o.module, op: o.name, count: o.count, totalUs: o.totalUs, meanUs: o.meanUs, minUs: o.meanUs, maxUs: o.meanUs }),
);
const opTotal = ops.reduce((a, o) => a + o.totalUs, 0);
const summary = (steps: number[]): TraceSummary => ({
  format: 'chrome-json', events: 45, tracks: [], startUs: 0, endUs: 1e7, opTotalUs: opTotal, ignored: 0, unpaired: 0,
  steps: steps.map((durUs, i) => ({ step: i, name: 'train', startUs: i * 1e6, durUs, track: 0 })),
});

describe('op table rows', () => {
  it('takes shares of all op time without steps, of the steps when marked', () => {
    const rows = opRows(ops, summary([]), () => undefined);
    expect(shareBase(summary([])).of).toBe('op time');
    expect(rows.reduce((a, r) => a + r.share, 0)).toBeCloseTo(1, 9);
    const stepped = opRows(ops, summary([opTotal, opTotal]), () => undefined);
    expect(shareBase(summary([1])).of).toBe('step');
    expect(stepped.reduce((a, r) => a + r.share, 0)).toBeCloseTo(0.5, 9);
  });

  it('turns bytes and FLOPs into rates over the mean time', () => {
    const [row] = opRows([ops[1]!], summary([]), () => ({ from: 0, to: 1, line: 3, bytes: 1e9, flops: 2e9 }));
    expect(row!.bandwidth).toBeCloseTo(1e9 / (ops[1]!.meanUs * 1e-6), 3);
    expect(row!.flopRate).toBeCloseTo(2e9 / (ops[1]!.meanUs * 1e-6), 3);
    expect(opRows([ops[1]!], summary([]), () => ({ from: 0, to: 1, line: 3 }))[0]!.bandwidth).toBeUndefined();
  });

  it('sorts by any column either way, rows without a value last, and searches op names', () => {
    const rows = opRows(ops, summary([]), (o) => (o.op.startsWith('wrapped_convert') ? { from: 0, to: 1, line: 1, bytes: o.count * 1000 + o.op.length } : undefined));
    const byName = viewRows(rows, '', 'op', false).map((r) => r.op);
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b)));
    expect(viewRows(rows, '', 'op', true).map((r) => r.op)).toEqual([...byName].reverse());
    const byMean = viewRows(rows, '', 'meanUs', true);
    expect(byMean.every((r, i) => i === 0 || byMean[i - 1]!.meanUs >= r.meanUs)).toBe(true);
    const byBytes = viewRows(rows, '', 'bytes', false);
    const withBytes = byBytes.filter((r) => r.bytes !== undefined);
    expect(withBytes.length).toBe(5);
    expect(byBytes.slice(0, 5)).toEqual(withBytes);
    expect(viewRows(rows, 'REDUCE-WIN', 'totalUs', true).map((r) => r.op)).toEqual(['wrapped_reduce-window', 'wrapped_reduce-window.2', 'wrapped_reduce-window.1', 'wrapped_reduce-window.3']);
  });
});
