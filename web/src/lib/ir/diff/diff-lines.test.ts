import { describe, expect, it } from 'vitest';
import { diffModules } from '@seam/shared/ir';
import naive from '../../../../../test/fixtures/diff/attention/hlo-opt.txt?raw';
import online from '../../../../../test/fixtures/diff/attention_online/hlo-opt.txt?raw';
import { counterpart, diffChanges, diffLines } from './diff-lines';
import { digestDiff } from './diff-digest';

const d = diffModules(naive, online);
const lineOf = (text: string, n: number) => text.split('\n')[n - 1] ?? '';

describe('diff lines and changes', () => {
  const lines = diffLines(d);

  it('maps each matched line to its counterpart both ways, and lists the lines only one side has', () => {
    // A's first matched op (`%constant.2`, line 41) went to B's `%constant.14`, line 288, and back.
    expect(counterpart(lines, 'a', 41)).toBe(288);
    expect(counterpart(lines, 'b', 288)).toBe(41);
    expect(lineOf(naive, 41)).toContain('%constant.2 = f32[] constant(0)');
    expect(lineOf(online, 288)).toContain('%constant.14 = f32[] constant(0)');
    // The naive module's score dot (line 154) and the online module's blocked dot (line 211) have no counterpart.
    expect(lines.removed).toContain(154);
    expect(lines.added).toContain(211);
    expect(counterpart(lines, 'a', 154)).toBeUndefined();
    expect(counterpart(lines, 'a', 0)).toBeUndefined();
    expect(counterpart(lines, 'b', 1e6)).toBeUndefined();
    expect(lineOf(naive, 154)).toContain('dot_general.2');
    expect([...lines.removed]).toEqual([...new Set(d.removed.map((i) => i.line))].sort((x, y) => x - y));
    // Every pair of the diff is in the map (a line keeps its first counterpart).
    for (const p of d.pairs) expect(counterpart(lines, 'a', p.a.line)).toBeGreaterThan(0);
  });

  it('lists the S×S spills as gone first, with their lines in A, then fusions and one-sided instructions', () => {
    const changes = diffChanges(d, lines);
    const gone = changes.filter((c) => c.kind === 'spill' && c.change === 'disappeared' && c.label.includes('f32[8192,8192]'));
    // Their writers have no counterpart: B's pane goes to the computation they sat in (the entry).
    const entryB = d.computations.find((c) => c.a === d.spills.find((s) => s.a?.name === 'dot_general.2')?.a?.scope)?.lineB;
    expect(entryB).toBeGreaterThan(0);
    expect(gone.map((c) => [c.label.split(' ')[0], c.lineA, c.lineB])).toEqual([['convert_exponential_fusion', 159, entryB], ['convert_convert_fusion', 163, entryB], ['dot_general.2', 154, entryB]]);
    expect(changes[0]?.kind).toBe('spill');
    const kinds = changes.map((c) => c.kind);
    expect(kinds.lastIndexOf('spill')).toBeLessThan(kinds.indexOf('removed'));
    const dot = changes.find((c) => c.kind === 'removed' && c.label.startsWith('dot_general.2 '));
    expect(dot).toMatchObject({ lineA: 154 });
    // A one-sided instruction points the other pane at the computation it sits in, when that has a counterpart.
    expect(dot?.lineB).toBe(d.computations.find((c) => c.a === d.removed.find((i) => i.line === 154)?.scope)?.lineB);
  });
});

describe('the digest the page keeps', () => {
  it('holds the summary, the line maps, the changes and the whole Markdown, without the pairs', () => {
    const g = digestDiff(d, { a: 'naive', b: 'online' });
    expect(g.summary).toEqual(d.summary);
    expect(g.changeCount).toBe(diffChanges(d).length);
    expect(g.changes).toEqual(diffChanges(d).slice(0, g.changes.length));
    expect(g.markdown.startsWith('# Diff: naive → online')).toBe(true);
  });
});
