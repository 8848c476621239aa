import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, seam } from './seam-process';

const root = REPO_ROOT;
const fx = (program: string, file: string): string => join(root, 'test/fixtures/ir', program, file);

// Each case starts Node and tsx afresh; leave room for a loaded machine.
describe('seam command line', { timeout: 90_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'seam-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('analyze --json prints one object per file with kind, diagnostics and index', async () => {
    const files = [fx('mlp', 'jaxpr.txt'), fx('mlp', 'stablehlo-debug.mlir'), fx('attention', 'hlo-opt.txt')];
    const { code, stdout } = await seam('analyze', ...files, '--json');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { file: string; kind: string; diagnostics: unknown[]; index: { dots: Array<{ einsum: string }>; spills: Array<{ bytes: number; producer: string }> } });
    expect(lines.map((l) => [l.file, l.kind])).toEqual([
      [files[0], 'jaxpr'],
      [files[1], 'stablehlo'],
      [files[2], 'hlo-opt'],
    ]);
    expect(lines.every((l) => Array.isArray(l.diagnostics) && l.diagnostics.length === 0)).toBe(true);
    expect(lines[0]?.index.dots.map((d) => d.einsum)).toEqual(['ij,jk->ik']);
    expect(lines[1]?.index.dots.map((d) => d.einsum)).toEqual(['ij,jk->ik']);
    // the 8192×8192 score matrix, in the dtype the compiled dump gives it
    expect([134_217_728, 268_435_456]).toContain(lines[2]?.index.spills[0]?.bytes);
  });

  it('analyze prints kind, outline, spills with bytes and traffic, dot_generals and diagnostics', async () => {
    const { code, stdout } = await seam('analyze', fx('attention', 'hlo-opt.txt'), fx('mlp', 'jaxpr.txt'));
    expect(code).toBe(0);
    expect(stdout).toMatch(/attention\/hlo-opt\.txt: hlo-opt, \d+ lines/);
    expect(stdout).toMatch(/spill candidates: \d+ \(top \d+ by traffic\)/);
    expect(stdout).toMatch(/\[8192,8192\]\S*\s+(134,217,728|268,435,456) B/);
    expect(stdout).toMatch(/traffic [\d,]+ B/);
    expect(stdout).toMatch(/mlp\/jaxpr\.txt: jaxpr/);
    expect(stdout).toMatch(/d\s+ij,jk->ik\s+\[32x64\] · \[64x128\]\s+contracting \[1\] x \[0\]/);
    expect(stdout).toMatch(/diagnostics: 0/);
  });

  it('reports diagnostics with line and column, and keeps going past unreadable files', async () => {
    const bad = join(dir, 'bad.jaxpr');
    await writeFile(bad, '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n  in (b,)\n');
    const { code, stdout, stderr } = await seam('analyze', join(dir, 'missing.txt'), bad);
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot read .*missing\.txt/);
    expect(stdout).toMatch(/bad\.jaxpr: jaxpr/);
    expect(stdout).toMatch(/diagnostics: 1 \(1 errors\)\n\s+4:1 error: expected '\}' to close the jaxpr/);
    const json = await seam('analyze', join(dir, 'missing.txt'), '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ file: join(dir, 'missing.txt'), error: expect.stringMatching(/ENOENT/) });
  });

  it('link prints one row per jaxpr equation, the dot_general joined across layers', async () => {
    const { code, stdout } = await seam('link', fx('mlp', 'jaxpr.txt'), fx('mlp', 'stablehlo-debug.mlir'), fx('mlp', 'hlo-opt.txt'));
    expect(code).toBe(0);
    const rows = stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^line\s+equation\s+source\s+StableHLO\s+HLO$/);
    expect(rows).toHaveLength(11);
    expect(rows[1]).toMatch(/^2\s+d = dot_general\s+program\.py:5\s+%0 stablehlo\.dot_general\s+.*dot/);
  });

  it('link --markdown and --json print the same rows', async () => {
    const args = [fx('attention', 'jaxpr.txt'), fx('attention', 'stablehlo-debug.mlir'), fx('attention', 'hlo-opt.txt')];
    const md = await seam('link', ...args, '--markdown');
    const json = await seam('link', ...args, '--json');
    const rows = json.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { primitive: string; stablehlo: Array<{ op: string }>; hlo: Array<{ op: string }> });
    expect(md.stdout.trimEnd().split('\n')).toHaveLength(rows.length + 2);
    const dots = rows.filter((r) => r.primitive === 'dot_general');
    expect(dots).toHaveLength(2);
    for (const d of dots) {
      expect(d.stablehlo.map((o) => o.op)).toEqual(['stablehlo.dot_general']);
      expect(d.hlo.some((o) => o.op === 'dot')).toBe(true);
    }
  });

  it('link says when the StableHLO has no debug info to join on', async () => {
    const { code, stdout, stderr } = await seam('link', fx('mlp', 'jaxpr.txt'), fx('mlp', 'stablehlo.mlir'), fx('mlp', 'hlo-opt.txt'));
    expect(code).toBe(0);
    expect(stderr).toMatch(/stablehlo\.mlir has no loc\(…\) debug info/);
    expect(stdout).toMatch(/^2\s+d = dot_general\s+program\.py:5\s+-\s+.*dot/m);
  });

  it('link refuses files given in the wrong order, saying which is which', async () => {
    const { code, stdout, stderr } = await seam('link', fx('mlp', 'hlo-opt.txt'), fx('mlp', 'jaxpr.txt'), fx('mlp', 'stablehlo-debug.mlir'));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/hlo-opt\.txt looks like hlo-opt, not jaxpr; the order is JAXPR STABLEHLO HLO/);
  });

  it('refuses a bad command line with usage and status 2', async () => {
    const { code, stderr } = await seam('link', 'a', 'b');
    expect(code).toBe(2);
    expect(stderr).toMatch(/link needs exactly three files[\s\S]*Usage:/);
  });
});
