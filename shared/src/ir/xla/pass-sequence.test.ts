import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from '../hlo/index';
import { passSequence, passSequenceOfTexts } from './pass-sequence';

/** A folder's per-pass dumps in pass order, labelled as named: `module_0000.jit_mlp.0022.dot-library-passes.after_dot-library-rewriter.before_pipeline-end.txt`. */
function passDumps(name: string): { label: string; text: string }[] {
  const folder = new URL(`../../../../test/fixtures/xla-dump/${name}/`, import.meta.url);
  return readdirSync(folder)
    .filter((n) => /^module_0000\.jit_\w+\.\d{4}\./.test(n))
    .sort()
    .map((n) => ({ label: n.split('.').slice(2, -1).join('.'), text: readFileSync(new URL(n, folder), 'utf8') }));
}
const passes = passDumps('mlp-passes');

describe('pass sequence of the MLP compiled with --xla_dump_hlo_pass_re=.*', () => {
  const rows = passSequenceOfTexts(passes);

  it('has one row per pass dump, in pass order, each counted by the HLO index', () => {
    expect(passes).toHaveLength(33);
    expect(rows.map((r) => r.position)).toEqual([...Array(33).keys()]);
    expect(rows[0]).toMatchObject({ label: '0000.async-collective.after_pipeline-start.before_async-collective-replacer', instructions: 24, fusions: 0, copies: 0, changed: true });
    expect(rows[0]?.delta).toBeUndefined();
    for (const [i, r] of rows.entries()) expect(r.instructions).toBe(indexHlo(passes[i]?.text ?? '').index.values.length);
  });

  it('names the pass where the dot became a fusion, and the fusion it formed', () => {
    const formed = rows.filter((r) => (r.delta?.fusionsFormed.length ?? 0) > 0);
    expect(formed[0]).toMatchObject({ label: '0022.dot-library-passes.after_dot-library-rewriter.before_pipeline-end', fusions: 1 });
    expect(formed[0]?.delta).toMatchObject({ fusions: 1, instructions: 4, fusionsFormed: ['ynn_fusion'], fusionsRemoved: [] });
    const last = rows[rows.length - 1];
    expect(last?.fusions).toBe(4);
  });

  it('marks passes that changed nothing counted', () => {
    const still = rows.filter((r) => !r.changed);
    expect(still.length).toBeGreaterThan(10);
    for (const r of still) expect(r.delta).toMatchObject({ instructions: 0, fusions: 0, copies: 0, bytes: 0 });
  });

  it('names copies that appear and go', () => {
    const step = (copyNames: string[]) => ({ instructions: copyNames.length, fusions: 0, copies: copyNames.length, bytes: 0, fusionNames: [], copyNames });
    const seq = passSequence([{ label: 'a', step: step(['copy.1']) }, { label: 'b', step: step(['copy.1', 'copy.2']) }, { label: 'c', step: step(['copy.2']) }]);
    expect(seq[1]?.delta).toMatchObject({ copies: 1, copiesAppeared: ['copy.2'], copiesRemoved: [] });
    expect(seq[2]?.delta).toMatchObject({ copies: -1, copiesAppeared: [], copiesRemoved: ['copy.1'] });
  });
});

describe('pass sequence of a scanned RNN, whose loop gets copies', () => {
  const rows = passSequenceOfTexts(passDumps('scan-passes'));
  const at = (label: string) => rows.find((r) => r.label === label);

  it('names the fusions the fusion pass formed', () => {
    expect(rows).toHaveLength(29);
    expect(at('0021.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper')?.delta?.fusionsFormed).toEqual(['add_tanh_fusion', 'bitcast_dynamic-update-slice_fusion']);
  });

  it('names the copies copy insertion added and those the next pass took away again', () => {
    const added = at('0024.copy-insertion.after_adding_copies_to_resolve_interference');
    expect(added).toMatchObject({ copies: 10, delta: { copies: 10 } });
    expect([...(added?.delta?.copiesAppeared ?? [])].sort()).toEqual(['copy', 'copy.1', 'copy.2', 'copy.3', 'copy.4', 'copy.5', 'copy.6', 'copy.7', 'copy.8', 'copy.9']);
    expect(at('0026.copy-insertion.after_adding_special-case_copies')?.delta?.copiesAppeared).toEqual(['copy.11', 'copy.10']);
    const after = at('0027.HLO_passes_after_layout_assignment.after_copy-insertion.before_small-while-loop-hoisting');
    expect(after).toMatchObject({ copies: 3, delta: { copies: -9, copiesAppeared: [] } });
    expect(after?.delta?.copiesRemoved).toHaveLength(9);
  });
});
