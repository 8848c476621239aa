import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from '../hlo/index';
import { passSequence, passSequenceOfTexts } from './pass-sequence';

const folder = new URL('../../../../test/fixtures/xla-dump/mlp-passes/', import.meta.url);
/** The MLP's per-pass dumps in pass order: `module_0000.jit_mlp.0022.dot-library-passes.after_dot-library-rewriter.before_pipeline-end.txt`. */
const passes = readdirSync(folder)
  .filter((n) => /^module_0000\.jit_mlp\.\d{4}\./.test(n))
  .sort()
  .map((n) => ({ label: n.split('.').slice(2, -1).join('.'), text: readFileSync(new URL(n, folder), 'utf8') }));

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
