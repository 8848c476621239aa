import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { humanBytes, parseMemoryReport } from './memory-report';

const report = (folder: string): string =>
  readFileSync(new URL(`../../../../test/fixtures/xla-dump/${folder}/module_0000.jit_${folder}.cpu_after_optimizations-memory-usage-report.txt`, import.meta.url), 'utf8');

describe('parseMemoryReport on XLA:CPU dumps', () => {
  it('reads the memory space, its total and one table per allocation, largest first', () => {
    const { ast, diagnostics } = parseMemoryReport(report('attention'));
    expect(diagnostics).toEqual([]);
    expect(ast.totalBytes).toBe(415252540);
    expect(ast.spaces).toHaveLength(1);
    const [space] = ast.spaces;
    expect(space).toMatchObject({ name: 'default', color: 0, totalBytes: 415252540 });
    expect(space?.tables).toHaveLength(25);
    expect(space?.tables[0]?.[0]).toEqual({
      sizeText: '256.00MiB', bytes: 268435456, offset: 0, values: 4, shapes: [{ shape: 'bf16[8192,256]', count: 1 }, { shape: 'f32[8192,8192]', count: 3 }],
    });
    expect(space?.tables[0]?.map((r) => r.offset)).toEqual([0, 268435456, 272629760, 402653184, 406847488]);
  });

  it('reads the MLP’s report', () => {
    const { ast, diagnostics } = parseMemoryReport(report('mlp'));
    expect(diagnostics).toEqual([]);
    expect(ast.totalBytes).toBe(29644);
    expect(ast.spaces[0]?.tables.map((t) => t.length)).toEqual([1, 3, 1, 1, 1, 1, 1, 1]);
    expect(ast.spaces[0]?.tables[1]?.map((r) => r.bytes)).toEqual([8192, 512, 128]);
  });

  it('reads XLA’s human-readable sizes back', () => {
    expect(humanBytes('256B')).toBe(256);
    expect(humanBytes('16.0KiB')).toBe(16384);
    expect(humanBytes('396.02MiB')).toBe(Math.round(396.02 * 2 ** 20));
    expect(humanBytes('12 parsecs')).toBeUndefined();
  });

  it('flags a broken row and a text that is no report, without throwing', () => {
    const broken = report('mlp').replace('8.5KiB( 99%);       512B;', '8.5KiB( 99%);  }{ 512B;');
    const r = parseMemoryReport(broken);
    expect(r.ast.spaces[0]?.tables[1]).toHaveLength(2);
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/memory-usage table/) })]);
    expect(parseMemoryReport('<script>alert(1)</script>').diagnostics).toEqual([expect.objectContaining({ severity: 'error', message: expect.stringMatching(/^not an XLA memory-usage report/) })]);
  });
});
