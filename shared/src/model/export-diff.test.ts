import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DocumentMeta } from './document';
import { buildExport, exportToJson, exportToMarkdown, inertCell } from './export';
import { exportDiff, MAX_EXPORT_DIFF_BYTES, versionPairs } from './export-diff';
import type { CaptureEntry } from './jobs';

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');
const doc = (id: string, kind: DocumentMeta['kind'], over: Partial<DocumentMeta> = {}): DocumentMeta => ({ id, title: `${id}.txt`, kind, bytes: 1, sha256: id, createdAt: 0, ...over });
const capture = (id: string, entry: string): CaptureEntry => ({ id, status: 'done', attempt: 1, entry, args: [], capture: [], requestedBy: 'Ada', createdAt: 0, updatedAt: 0, documents: [] });
const mod = (groupId: string, name: string, pass?: string) => ({ groupId, name, path: `${groupId}/x.txt`, ...(pass ? { pass: { index: 1, name: pass, when: 'after' as const } } : {}) });

describe('version pairs', () => {
  it("pairs each group's HLO with the same layer of the nearest earlier group of the same program", () => {
    const list = [
      doc('c1-j', 'jaxpr', { captureId: 'c1' }), doc('c1-h', 'hlo-opt', { captureId: 'c1' }),
      doc('m1-h', 'hlo-opt', { module: mod('g1', 'jit_step') }),
      doc('c2-h', 'hlo-opt', { captureId: 'c2' }), doc('c2-b', 'hlo', { captureId: 'c2' }),
      doc('c3-h', 'hlo-opt', { captureId: 'c3' }),
      doc('loose', 'hlo-opt'),
      doc('m2-h', 'hlo-opt', { module: mod('g2', 'jit_step') }), doc('m2-p', 'hlo', { module: mod('g2', 'jit_step', 'fusion') }),
      doc('m3-h', 'hlo', { module: mod('g3', 'jit_other') }),
    ];
    const caps = [capture('c1', 'attention'), capture('c2', 'attention'), capture('c3', 'mlp')];
    expect(versionPairs(list, caps).map((p) => [p.a.id, p.b.id, p.labelA, p.labelB])).toEqual([
      ['c1-h', 'c2-h', 'capture #1', 'capture #2'],
      ['m1-h', 'm2-h', 'jit_step · g1', 'jit_step · g2'],
    ]);
    // A capture whose entry is not known is nobody's version.
    expect(versionPairs(list, [capture('c2', 'attention')]).map((p) => p.b.id)).toEqual(['m2-h']);
  });
});

describe('a diff in the export', () => {
  const a = doc('a', 'hlo-opt', { title: 'naive <img src=x onerror=alert(1)>', captureId: 'c1' });
  const b = doc('b', 'hlo-opt', { title: 'online [x](javascript:alert(1))', captureId: 'c2' });
  const pair = { a, b, labelA: 'capture #1', labelB: 'capture #2' };
  const texts = new Map([['a', fixture('attention')], ['b', fixture('attention_online')]]);

  it('diffs the pair, says the S×S spills gone in both forms, and keeps titles inert', () => {
    const x = exportDiff(pair, { textOf: (d) => texts.get(d.id), escape: inertCell });
    expect(x.diff?.summary.spills.disappeared).toBeGreaterThanOrEqual(3);
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: [a, b], annotations: [], textOf: () => undefined, now: 0, diffs: [x] });
    const md = exportToMarkdown(e);
    expect(md).toContain('## Diffs (1)\n\n### capture #1 → capture #2');
    expect(md).toContain('#### Spill candidates: 12 disappeared (965,099,520 B (920.4 MiB))');
    expect(md).toContain('| disappeared | dot\\_general.2 f32\\[8192,8192\\]{1,0} (line 154) | - | 268,435,456 B (256 MiB) |');
    expect(md).not.toContain('<img');
    expect(md).not.toMatch(/(?<!\\)\]\(javascript/);
    expect(md).toContain('naive &lt;img src=x onerror=alert(1)&gt;');
    const json = exportToJson(e);
    expect(json).not.toMatch(/[<>]/);
    const back = JSON.parse(json) as typeof e;
    expect(back.diffs?.[0]?.diff?.spills.filter((s) => s.a?.type.startsWith("f32[8192,8192]")).map((s) => [s.change, s.a?.bytes])).toEqual([["disappeared", 268_435_456], ["disappeared", 268_435_456], ["disappeared", 268_435_456]]);
  });

  it('does not read a text over the limit, or one not stored, and says why', () => {
    const big = exportDiff({ ...pair, b: { ...b, bytes: MAX_EXPORT_DIFF_BYTES + 1 } }, { textOf: () => { throw new Error('read'); }, escape: inertCell });
    expect(big.diff).toBeUndefined();
    expect(big.skipped).toMatch(/over the 4,194,304 B the export diffs; run `seam diff`/);
    const gone = exportDiff(pair, { textOf: (d) => (d.id === 'a' ? texts.get('a') : undefined), escape: inertCell });
    expect(gone).toMatchObject({ skipped: 'the text of online [x](javascript:alert(1)) is not stored' });
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Lab', documents: [a, b], annotations: [], textOf: () => undefined, now: 0, diffs: [gone] }));
    expect(md).toContain('Not diffed: the text of online \\[x\\](javascript:alert(1)) is not stored.');
  });
});
