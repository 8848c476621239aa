import { describe, expect, it } from 'vitest';
import { analyze, detectKind, lacksDebugInfo, linkLayers } from '@seam/shared/ir';
import { ATTENTION_EXAMPLE } from './attention';

describe('the bundled attention example', () => {
  it('holds the three layers, with a StableHLO whose ops join the jaxpr dot_generals', () => {
    const [jaxpr, stablehlo, hlo] = ATTENTION_EXAMPLE.map((d) => d.text);
    expect([jaxpr, stablehlo, hlo].map((t) => detectKind(t ?? ''))).toEqual(['jaxpr', 'stablehlo', 'hlo-opt']);
    const shlo = analyze(stablehlo ?? '', 'stablehlo');
    expect(lacksDebugInfo(shlo)).toBe(false);
    const rows = linkLayers(analyze(jaxpr ?? '', 'jaxpr'), shlo, analyze(hlo ?? '', 'hlo-opt'));
    const dots = rows.filter((r) => r.primitive === 'dot_general');
    expect(dots).toHaveLength(2);
    for (const r of dots) expect(r.stablehlo.map((o) => o.op)).toEqual(['stablehlo.dot_general']);
  });
});
