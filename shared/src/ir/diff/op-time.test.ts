import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpTime } from '../gate';
import { diffModules } from './diff';
import { diffToMarkdown } from './markdown';

const read = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8');
const naive = read('diff/attention/hlo-opt.txt');
const online = read('diff/attention_online/hlo-opt.txt');
// The per-op table of a real CPU trace of the naive attention (the gate's fixture, same module).
const rows: OpTime[] = (JSON.parse(read('gate/attention-cpu/ops.json')) as { name: string; module: string; totalUs: number; count: number }[])
  .map((r) => ({ module: r.module, op: r.name, totalUs: r.totalUs, count: r.count }));
/** Names the module defines, read from the text independently of the parser: `%name = ` or `name = ` at a line's start. */
const defined = new Set([...naive.matchAll(/^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=/gm)].map((m) => m[1]));

describe('op time in the module diff', () => {
  it('sums the trace rows that name an op of each module, slowest first with their lines', () => {
    const d = diffModules(naive, naive, { opTimes: { a: rows, b: rows } });
    const ours = rows.filter((r) => defined.has(r.op));
    expect(ours.length).toBeGreaterThan(5);
    const total = ours.reduce((n, r) => n + r.totalUs, 0);
    expect(d.summary.opTime?.a).toBeCloseTo(total, 3);
    expect(d.summary.opTime?.b).toBeCloseTo(total, 3);
    expect(d.opTime?.ops).toEqual({ a: ours.length, b: ours.length });
    const slowest = d.opTime?.slowest.a ?? [];
    expect(slowest[0]?.totalUs).toBe(Math.max(...ours.map((r) => r.totalUs)));
    // The score dot's row sits on its own line of the dump (line 154, as the index reads it).
    expect(slowest.find((o) => o.name === 'dot_general.2')).toMatchObject({ line: 154, opcode: 'dot', count: 3 });
    expect(diffToMarkdown(d)).toContain(`## Op time (traces): ${total.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} µs`);
  });

  it('says no op time unless both modules have rows naming their ops', () => {
    expect(diffModules(naive, online, { opTimes: { a: rows } }).opTime).toBeUndefined();
    expect(diffModules(naive, online).summary.opTime).toBeUndefined();
    // Rows naming no op of the module, or with no finite time, count for nothing.
    const stranger: OpTime[] = [{ op: 'no_such_op', totalUs: 5, count: 1 }, { op: 'dot_general.2', totalUs: Number.NaN, count: 1 }];
    expect(diffModules(naive, naive, { opTimes: { a: rows, b: stranger } }).opTime).toBeUndefined();
    expect(diffToMarkdown(diffModules(naive, online))).not.toContain('Op time');
  });
});
