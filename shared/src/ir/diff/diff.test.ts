import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from '../hlo/index';
import { diffModules } from './diff';
import { diffToMarkdown } from './markdown';

const fixture = (name: string): string => readFileSync(new URL(`../../../../test/fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');

describe('diffModules on real captures', () => {
  it('shows the S×S score spill of naive attention disappearing under an online softmax', () => {
    const naive = fixture('attention');
    const d = diffModules(naive, fixture('attention_online'));
    // The index's own figures for the score matrix written by the dot (`dot_general.2`, line 154).
    const scores = indexHlo(naive).index.spills.find((s) => s.producer === 'dot_general.2');
    expect(scores).toMatchObject({ type: 'f32[8192,8192]{1,0}', bytes: 8192 * 8192 * 4, line: 154 });
    const gone = d.spills.filter((s) => s.change === 'disappeared' && s.a?.type.startsWith('f32[8192,8192]')).map((s) => [s.a?.name, s.a?.bytes]);
    expect(gone).toEqual([['convert_exponential_fusion', 268_435_456], ['convert_convert_fusion', 268_435_456], ['dot_general.2', 268_435_456]]);
    // No S×S value spills in B; its largest are the S×1024 blocks of the 8-trip loop.
    expect(d.spills.some((s) => s.b?.type.includes('8192,8192'))).toBe(false);
    const blocks = d.spills.filter((s) => s.change === 'appeared' && s.b?.type === 'f32[8192,1024]{1,0}');
    expect(blocks.map((s) => [s.b?.bytes, s.b?.loop?.trips])).toEqual([[33_554_432, 8], [33_554_432, 8], [33_554_432, 8]]);
    expect(d.summary.spills.bytesDisappeared).toBeGreaterThanOrEqual(3 * 268_435_456);
    expect(d.summary.traffic.a).toBe(d.a.traffic);
    expect(d.summary.identical).toBe(false);
    // The naive module's two dots have no counterpart: B's dots run in the loop, on blocks.
    expect(d.removed.filter((i) => i.opcode === 'dot').map((i) => [i.name, i.line, i.type])).toEqual([['dot_general.2', 154, 'f32[8192,8192]'], ['dot_general.3', 164, 'f32[8192,128]']]);
    expect(d.added.filter((i) => i.opcode === 'dot').map((i) => [i.name, i.line, i.type])).toEqual([['dot_general.6', 211, 'f32[8192,1024]'], ['dot_general.7', 219, 'f32[8192,128]']]);
  });

  it('shows jax.checkpoint adding the recomputed forward ops and dropping the saved tanh', () => {
    const d = diffModules(fixture('mlp'), fixture('mlp_remat'));
    expect(d.summary.removed).toBe(0);
    // Both layers' gelu recomputed in the backward fusions (mlp_remat/hlo-opt.txt lines 60 and 108).
    const tanh = d.added.filter((i) => i.opcode === 'tanh').map((i) => [i.name, i.line, i.type]);
    expect(tanh).toEqual([['tanh.0', 60, 'f32[16,128]'], ['tanh.1', 108, 'f32[16,64]']]);
    // Every added op that has a name stack is a recomputed one.
    const named = d.added.filter((i) => i.opName !== undefined);
    expect(named.length).toBeGreaterThanOrEqual(10);
    for (const i of named) expect(i.opName).toContain('/checkpoint/rematted_computation/');
    // The forward tanh of each layer is still there, matched: A's lines 151 and 177 to B's 168 and 182.
    const forward = d.pairs.filter((p) => p.opcode === 'tanh').map((p) => [p.a.line, p.b.line]).sort((x, y) => (x[0] as number) - (y[0] as number));
    expect(forward).toEqual([[151, 168], [177, 182]]);
    // A saved the first layer's tanh (f32[16,128], 8 KiB) for the backward pass; B recomputes it.
    expect(d.spills.filter((s) => s.change !== 'kept').map((s) => [s.change, s.a?.name, s.a?.bytes])).toEqual([['disappeared', 'multiply_tanh_fusion.1', 8192]]);
    expect(d.summary.traffic).toEqual({ a: 163_856, b: 131_088 });
    // The fusion that computed it is merged into B's forward gelu fusion.
    const formed = d.fusionChanges.find((c) => c.change === 'formed' && c.a.some((k) => k.name === 'multiply_tanh_fusion.1'));
    expect(formed?.b.map((k) => k.name)).toEqual(['multiply_multiply_fusion.1']);
    // Read the other way, that gelu fusion of B is split in A: the tanh saved apart from the rest.
    const back = diffModules(fixture('mlp_remat'), fixture('mlp'));
    expect(back.fusionChanges.filter((c) => c.change === 'split').map((c) => [c.a.map((k) => [k.name, k.line]), c.b.map((k) => [k.name, k.line])])).toEqual([
      [[['multiply_multiply_fusion.1', 210]], [['multiply_tanh_fusion.1', 198], ['multiply_multiply_fusion.1', 199]]],
    ]);
  });

  it('finds nothing between a module and itself', () => {
    const text = fixture('attention_online');
    const d = diffModules(text, text);
    expect(d.summary).toMatchObject({ changed: 0, added: 0, removed: 0, identical: true, customCalls: { added: 0, removed: 0 } });
    expect(d.summary.matched).toBe(d.a.instructions);
    expect(d.fusionChanges).toEqual([]);
    expect(d.fusionsKept.length).toBe(d.a.fusions);
    expect(d.spills.every((s) => s.change === 'kept' && s.a?.line === s.b?.line)).toBe(true);
    expect(d.pairs.every((p) => p.a.line === p.b.line && p.a.name === p.b.name)).toBe(true);
  });

  it('matches a module whose instructions and computations were all renamed, line for line', () => {
    const text = fixture('mlp_remat');
    // Every `%name` becomes `%n_<name with _ for .>`: same structure, no name in common.
    const renamed = text.replace(/%([\w.-]+)/g, (_, n: string) => `%n_${n.replace(/[.-]/g, '_')}`);
    expect(renamed).not.toBe(text);
    const d = diffModules(text, renamed);
    expect(d.summary).toMatchObject({ added: 0, removed: 0, changed: 0, identical: true });
    expect(d.summary.matched).toBe(d.a.instructions);
    expect(d.pairs.every((p) => p.a.line === p.b.line && p.b.name === `n_${p.a.name.replace(/[.-]/g, '_')}`)).toBe(true);
    expect(d.computations.find((c) => c.a === 'main.2')).toMatchObject({ b: 'n_main_2' });
    // Entry with entry, and each kept fusion's fused computation with its renamed self.
    expect(d.computations.length).toBeGreaterThanOrEqual(d.fusionsKept.length + 1);
    expect(d.computations.every((c) => c.b === `n_${c.a.replace(/[.-]/g, '_')}` && c.lineA === c.lineB)).toBe(true);
  });

  it('diffs two pass dumps of one module: the fusion pass forms a fusion from two unfused ops', () => {
    const dir = new URL('../../../../test/fixtures/xla-dump/mlp-passes/', import.meta.url);
    const pass = (n: string): string => {
      const file = readdirSync(dir).find((f) => f.startsWith(`module_0000.jit_mlp.${n}.`));
      return readFileSync(new URL(file ?? 'missing', dir), 'utf8');
    };
    // 0024 is before the `fusion` pass, 0025 after it (both HLO before optimization ends: no spills).
    const d = diffModules(pass('0024'), pass('0025'), { kindA: 'hlo', kindB: 'hlo' });
    expect(d.summary).toMatchObject({ added: 0, removed: 0, changed: 0, fusions: { formed: 1, kept: 1, split: 0, gone: 0, added: 0 } });
    expect(d.fusionChanges).toEqual([{
      change: 'formed',
      a: [{ name: 'multiply', scope: 'main.3', line: 55, opcode: 'multiply' }, { name: 'convert_element_type.3', scope: 'main.3', line: 56, opcode: 'convert' }],
      b: [{ name: 'multiply_convert_fusion', scope: 'main.3', line: 61, opcode: 'fusion', kind: 'kLoop' }],
    }]);
    expect(d.spills).toEqual([]);
    // Read the other way, the fusion is gone: its ops are the two unfused ops again.
    const back = diffModules(pass('0025'), pass('0024'), { kindA: 'hlo', kindB: 'hlo' });
    expect(back.fusionChanges).toEqual([{ change: 'gone', a: d.fusionChanges[0]?.b, b: d.fusionChanges[0]?.a }]);
  });

  it('names a custom-call kernel that a plain dot replaced, and the value it wrote', () => {
    const tpu = readFileSync(new URL('../../../../test/fixtures/xla-dump/tpu/pallas-matmul.hlo', import.meta.url), 'utf8');
    // Line 11's Pallas kernel becomes an XLA dot of the same operands and result.
    const lines = tpu.split('\n');
    expect(lines[10]).toContain('%custom-call.3 = f32[1024,256]{1,0} custom-call(%Arg_0.1, %Arg_1.2), custom_call_target="tpu_custom_call"');
    lines[10] = '  %dot.3 = f32[1024,256]{1,0} dot(%Arg_0.1, %Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(func)/jit(main)/dot_general"}';
    const d = diffModules(tpu, lines.join('\n').replace('fusion(%custom-call.3)', 'fusion(%dot.3)'));
    expect(d.customCalls).toEqual({
      added: [],
      removed: [{ name: 'custom-call.3', scope: 'main.6', line: 11, target: 'tpu_custom_call', kernelName: 'matmul_kernel', inputBytes: (1024 * 512 + 512 * 256) * 4, outputBytes: 1024 * 256 * 4 }],
    });
    expect(d.removed.map((i) => i.name)).toEqual(['custom-call.3']);
    expect(d.added.map((i) => [i.name, i.opcode, i.line])).toEqual([['dot.3', 'dot', 11]]);
    expect(d.spills.map((s) => [s.change, s.a?.name ?? s.b?.name, (s.a ?? s.b)?.bytes])).toEqual([['disappeared', 'custom-call.3', 1_048_576], ['appeared', 'dot.3', 1_048_576]]);
    // The fusion reading it is the same fusion: its multiply pairs, operands aside.
    expect(d.fusionsKept.map((f) => [f.a.name, f.b.name])).toEqual([['multiply_fusion', 'multiply_fusion']]);
  });

  it('reads damaged and hostile input without throwing, saying what it could not read', () => {
    const text = fixture('mlp');
    for (const cut of [0, 1, 100, 1000, text.length >> 1, text.length - 3]) {
      const d = diffModules(text.slice(0, cut), text);
      // A cut computation's ops read operands it never got to: they are removed, not thrown on.
      expect(d.summary.matched + d.summary.removed).toBe(d.a.instructions);
      expect(d.summary.matched + d.summary.added).toBe(d.b.instructions);
    }
    const junk = diffModules('%a = f32[2]{0} add(%a, %a)\n}}}{{{ not hlo', '\u0000\ud83d ROOT %x = (((');
    expect(junk.summary.matched).toBe(0);
    expect(junk.diagnostics.b.length).toBeGreaterThan(0);
    // An instruction that reads itself, and fusions calling each other, end the operand walks.
    const loop = 'HloModule m\n%f (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n  ROOT %g = f32[2]{0} fusion(%p), kind=kLoop, calls=%f\n}\nENTRY %e (x: f32[2]) -> f32[2] {\n  %x = f32[2]{0} parameter(0)\n  ROOT %y = f32[2]{0} fusion(%y), kind=kLoop, calls=%f\n}\n';
    expect(diffModules(loop, loop).summary.identical).toBe(true);
  });

  it('writes Markdown that names the vanished spill with its bytes, and escapes dump text', () => {
    const md = diffToMarkdown(diffModules(fixture('attention'), fixture('attention_online')), { a: 'naive|attention', b: 'online' });
    expect(md).toContain('# Diff: naive\\|attention → online');
    expect(md).toMatch(/\| disappeared \| dot_general\.2 f32\[8192,8192\]\{1,0\} \(line 154\) \| - \| 268,435,456 B \(256 MiB\) \|/);
  });
});
