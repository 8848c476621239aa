import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffModules } from './diff';

const fixture = (name: string): string => readFileSync(new URL(`../../../../test/fixtures/diff/${name}/hlo-opt.txt`, import.meta.url), 'utf8');

describe('diffModules on a sharded MLP with and without with_sharding_constraint', () => {
  const d = diffModules(fixture('sharded'), fixture('sharded_constraint'));

  it('shows the all-gather the constraint adds, with its bytes, and the slice each device keeps of it', () => {
    // sharded_constraint/hlo-opt.txt line 88: `%all-gather = f32[16,64]{0,1} all-gather(%multiply_multiply_fusion)`,
    // over the model axis; line 89: a dynamic-slice fusion cuts each device's f32[16,32] back out, by partition id (82).
    expect(d.added.filter((i) => i.scope === 'main.0_spmd').map((i) => [i.opcode, i.name, i.line, i.type])).toEqual([
      ['partition-id', 'partition-id', 82, 'u32[]'],
      ['constant', 'constant.12', 85, 'u32[8]'],
      ['all-gather', 'all-gather', 88, 'f32[16,64]'],
    ]);
    expect(d.fusionChanges.map((c) => [c.change, c.b.map((k) => [k.name, k.line, k.kind])])).toEqual([['added', [['bitcast_dynamic-slice_fusion', 89, 'kLoop']]]]);
    // The gathered activations are written whole, 4 KiB per device.
    expect(d.spills.filter((s) => s.change === 'appeared' && s.b?.name === 'all-gather').map((s) => s.b?.bytes)).toEqual([16 * 64 * 4]);
    expect(d.summary.removed).toBe(0);
  });

  it('keeps the all-reduce of the second dot matched, in both modules', () => {
    // sharded/hlo-opt.txt line 67 and sharded_constraint/hlo-opt.txt line 91: `ROOT %all-reduce = f32[16,32]{1,0} all-reduce(%ynn_fusion)`.
    expect(d.pairs.filter((p) => p.opcode === 'all-reduce').map((p) => [p.a.line, p.b.line])).toEqual([[67, 91]]);
    expect(d.added.some((i) => i.opcode === 'all-reduce')).toBe(false);
  });

  it('read the other way, the all-gather is removed', () => {
    const back = diffModules(fixture('sharded_constraint'), fixture('sharded'));
    expect(back.removed.filter((i) => i.opcode === 'all-gather').map((i) => [i.name, i.line, i.type])).toEqual([['all-gather', 88, 'f32[16,64]']]);
    expect(back.summary.added).toBe(0);
  });
});
