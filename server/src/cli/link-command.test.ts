import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, seam } from './seam-process';

const joins = (program: string, file: string): string => join(REPO_ROOT, 'test/fixtures/joins', program, file);
const layers = (program: string): string[] => [joins(program, 'jaxpr.txt'), joins(program, 'stablehlo-debug.mlir'), joins(program, 'hlo-opt.txt')];

type Row = { equation: string; primitive: string; stablehlo: Array<{ name: string; op: string }>; hlo: Array<{ name: string; op: string }> };

// Each case starts Node and tsx afresh; leave room for a loaded machine.
describe('seam link and seam analyze on real captures', { timeout: 90_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'seam-link-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('link joins two dots of one source line each to its own ops, and warns of nothing', async () => {
    const { code, stdout, stderr } = await seam('link', ...layers('two_dots'), '--json');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const dots = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Row).filter((r) => r.primitive === 'dot_general');
    expect(dots.map((r) => [r.equation, r.stablehlo.map((o) => o.name), r.hlo.filter((o) => o.op === 'dot').map((o) => o.name)])).toEqual([
      ['e', ['%0'], ['dot_general.1']],
      ['f', ['%1'], ['dot_general.0']],
    ]);
  });

  it('link says which layer has no source info: a jaxpr without comments, an HLO without metadata', async () => {
    const jaxpr = join(dir, 'bare.jaxpr');
    const hlo = join(dir, 'bare-hlo.txt');
    await writeFile(jaxpr, (await readFile(joins('two_dots', 'jaxpr.txt'), 'utf8')).replace(/[ \t]*#[^\n]*/g, ''));
    await writeFile(hlo, (await readFile(joins('two_dots', 'hlo-opt.txt'), 'utf8')).replace(/, metadata=\{[^}]*\}/g, ''));
    const { code, stdout, stderr } = await seam('link', jaxpr, joins('two_dots', 'stablehlo-debug.mlir'), hlo);
    expect(code).toBe(0);
    expect(stderr).toMatch(/bare\.jaxpr has no source info .*pretty_print\(source_info=True, name_stack=True\)/);
    expect(stderr).toMatch(/bare-hlo\.txt has no metadata=\{op_name=…\}, so no HLO instruction can be joined/);
    expect(stderr).not.toMatch(/stablehlo-debug\.mlir/);
    expect(stdout.trimEnd().split('\n')).toHaveLength(4);
  });

  it('link warns when the jaxpr has no name stacks but the compiled ops run under jvp and transpose', async () => {
    const jaxpr = join(dir, 'no-stacks.jaxpr');
    // Keep the source comments, drop the `# [name/stack]` lines `name_stack=True` prints.
    await writeFile(jaxpr, (await readFile(joins('train', 'jaxpr.txt'), 'utf8')).replace(/\n[ \t]*# \[[^\n]*\]/g, ''));
    const { code, stderr } = await seam('link', jaxpr, joins('train', 'stablehlo-debug.mlir'), joins('train', 'hlo-opt.txt'));
    expect(code).toBe(0);
    expect(stderr).toMatch(/no-stacks\.jaxpr has no name stacks while the other layers' ops run under transforms/);
    expect(stderr).not.toMatch(/has no source info|has no loc|has no metadata/);
  });

  it('analyze shows a loop candidate’s trips and an in-place update, and --json carries them', async () => {
    const { code, stdout } = await seam('analyze', joins('train', 'hlo-opt.txt'), '--top', '40');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\s+ynn_fusion\s+f32\[16,32\]\S*\s+2,048 B \(2 KiB\)\s+traffic 16,384 B \(16 KiB\)\s+read by tanh_bitcast_fusion\s+in while\.11 ×4\s+line \d+$/m);
    expect(stdout).toMatch(/^\s+bitcast_dynamic-update-slice_fusion\s.*in place in while\.11 \(×4 not counted\)/m);
    const json = await seam('analyze', joins('train', 'hlo-opt.txt'), '--json');
    const spills = (JSON.parse(json.stdout) as { index: { spills: Array<{ producer: string; traffic: number; loop?: unknown }> } }).index.spills;
    expect(spills.find((s) => s.producer === 'ynn_fusion')).toMatchObject({ traffic: 16_384, loop: { whiles: ['while.11'], trips: 4 } });
  });
});
