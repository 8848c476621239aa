import { analyze } from '@seam/shared/ir';
import { describe, expect, it } from 'vitest';
import { CrossLayer, layerOf } from './cross-layer';

import mlpHlo from '../../../../test/fixtures/ir/mlp/hlo-opt.txt?raw';
import mlpJaxpr from '../../../../test/fixtures/ir/mlp/jaxpr.txt?raw';
import mlpShlo from '../../../../test/fixtures/ir/mlp/stablehlo-debug.mlir?raw';

const FILES: Record<string, string> = { 'jaxpr.txt': mlpJaxpr, 'stablehlo-debug.mlir': mlpShlo, 'hlo-opt.txt': mlpHlo };
const read = (p: string) => FILES[p] ?? '';
const lineNo = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

describe('cross-layer counterparts', () => {
  const jaxpr = read('jaxpr.txt');
  const shlo = read('stablehlo-debug.mlir');
  const hlo = read('hlo-opt.txt');
  const x = CrossLayer.of(analyze(jaxpr, 'jaxpr'), analyze(shlo, 'stablehlo'), analyze(hlo, 'hlo-opt'), jaxpr);

  it('joins the MLP dot_general equation, from any of its lines, to the StableHLO dot_general and the HLO that holds it', () => {
    const eq = lineNo(jaxpr, 'd:bf16[32,128] = dot_general[');
    for (const line of [eq, eq + 2, eq + 4]) {
      const c = x.counterparts('jaxpr', line);
      expect(c.stablehlo).toContain(lineNo(shlo, 'stablehlo.dot_general'));
      expect(c.hlo.length).toBeGreaterThan(0);
      const hloLines = hlo.split('\n');
      expect(c.hlo.some((n) => /\b(dot|fusion|custom-call)\(/.test(hloLines[n - 1] ?? ''))).toBe(true);
    }
  });

  it('goes back from the StableHLO op to the equation', () => {
    const c = x.counterparts('stablehlo', lineNo(shlo, 'stablehlo.dot_general'));
    expect(c.jaxpr).toContain(lineNo(jaxpr, 'd:bf16[32,128] = dot_general['));
  });

  it('writes one Markdown row per jaxpr equation', () => {
    const md = x.markdown().split('\n');
    expect(md.length - 2).toBe(x.rows.length);
    expect(x.rows.length).toBe(analyze(jaxpr, 'jaxpr').index.keys.length);
  });

  it('maps document kinds to layers', () => {
    expect(['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'trace', 'text'].map((k) => layerOf(k as never))).toEqual(['jaxpr', 'stablehlo', 'hlo', 'hlo', null, null]);
  });
});
