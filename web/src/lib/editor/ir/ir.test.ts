import { Text } from '@codemirror/state';
import { analyze } from '@seam/shared/ir';
import { describe, expect, it } from 'vitest';
import { definitionOf } from './goto';
import { hoverFacts } from './hover';
import { buildLookup, wordAt } from './lookup';
import { shapeAt } from './shape-bytes';
import { occurrences } from './uses';

import attentionHlo from '../../../../../test/fixtures/ir/attention/hlo-opt.txt?raw';
import mlpJaxpr from '../../../../../test/fixtures/ir/mlp/jaxpr.txt?raw';

const FIXTURES: Record<string, string> = { 'attention/hlo-opt.txt': attentionHlo, 'mlp/jaxpr.txt': mlpJaxpr };
const fixture = (p: string) => FIXTURES[p] ?? '';

/** A StableHLO dot_general of 16x32 · 32x32, as JAX lowers `x @ w`. */
const SMALL_DOT = [
  'module @jit_f {',
  '  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x32xf32>) -> (tensor<16x32xf32>) {',
  '    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>',
  '    return %0 : tensor<16x32xf32>',
  '  }',
  '}',
].join('\n');

function lineOf(text: string, needle: string) {
  const at = text.indexOf(needle);
  const from = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  return { at, line: { from, text: text.slice(from, end < 0 ? text.length : end) } };
}

describe('IR hover', () => {
  it('decodes a StableHLO dot_general of 16x32 · 32x32 as ij,jk->ik', () => {
    const l = buildLookup(analyze(SMALL_DOT, 'stablehlo').index);
    const { at, line } = lineOf(SMALL_DOT, 'stablehlo.dot_general');
    const facts = hoverFacts(l, line, at + 3);
    expect(facts?.lines).toContain('dot_general ij,jk->ik');
    expect(facts?.lines).toContain('lhs 16×32 · rhs 32×32');
    expect(facts?.lines).toContain('contracting [1] x [0]');
  });

  it('decodes dot_general in jaxpr and HLO too', () => {
    const jaxpr = fixture('mlp/jaxpr.txt');
    const j = lineOf(jaxpr, 'dot_general[');
    expect(hoverFacts(buildLookup(analyze(jaxpr, 'jaxpr').index), j.line, j.at + 2)?.lines).toContain('dot_general ij,jk->ik');
    const hlo = fixture('attention/hlo-opt.txt');
    const h = lineOf(hlo, '%dot_general.2 = ');
    const facts = hoverFacts(buildLookup(analyze(hlo, 'hlo-opt').index), h.line, h.at + 3);
    expect(facts?.lines).toContain('dot_general ij,kj->ik');
    expect(facts?.lines).toContain('lhs 8192×128 · rhs 8192×128');
  });

  it('shows a shape in bytes in every dialect', () => {
    expect(shapeAt('  %d = bf16[8192,8192]{1,0} fusion(%a)', 0, 10)).toMatchObject({ bytes: 134_217_728, text: 'bf16[8192,8192]{1,0}' });
    expect(shapeAt('(tensor<16x32xf32>, x)', 0, 5)?.bytes).toBe(2048);
    expect(shapeAt('d:bf16[32,128] = add', 0, 4)?.bytes).toBe(8192);
    expect(shapeAt('e:f32[] = sin d', 0, 3)?.bytes).toBe(4);
    expect(shapeAt('no shape here', 0, 3)).toBeNull();
  });

  it('shows a fusion kind, fused ops and bytes, and a spill with its traffic, in the real attention dump', () => {
    const text = fixture('attention/hlo-opt.txt');
    const index = analyze(text, 'hlo-opt').index;
    const l = buildLookup(index);
    const top = index.spills[0]!;
    const at = text.indexOf(top.producer, top.from);
    const from = text.lastIndexOf('\n', at) + 1;
    const line = { from, text: text.slice(from, text.indexOf('\n', at)) };
    const facts = hoverFacts(l, line, at + 1);
    expect(facts?.lines.some((s) => s.startsWith(`fusion ${top.producer} · `))).toBe(true);
    expect(facts?.lines).toContain('268,435,456 B (256 MiB) · 805,306,368 B (768 MiB) traffic');
  });
});

describe('IR go to definition and uses', () => {
  it('jumps from a calls= target to its fused computation', () => {
    const text = fixture('attention/hlo-opt.txt');
    const l = buildLookup(analyze(text, 'hlo-opt').index);
    const doc = Text.of(text.split('\n'));
    const m = /calls=%?([\w.\-]+)/.exec(text)!;
    const pos = m.index + m[0].length - 2;
    const { line } = lineOf(text, m[0]);
    const w = wordAt(line.text, line.from, pos)!;
    expect(w.text.replace(/^%/, '')).toBe(m[1]);
    const def = definitionOf(l, doc, w.text, pos)!;
    const defLine = doc.lineAt(def.from).text;
    expect(defLine).toMatch(new RegExp(`^%?${m[1]!.replace(/\./g, '\\.')} `));
    expect(doc.sliceString(def.from, def.to)).toBe(m[1]);
  });

  it('jumps from a use of a jaxpr variable to the equation that defines it', () => {
    const text = fixture('mlp/jaxpr.txt');
    const l = buildLookup(analyze(text, 'jaxpr').index);
    const doc = Text.of(text.split('\n'));
    const use = text.indexOf('add d e') + 4;
    const def = definitionOf(l, doc, 'd', use)!;
    expect(doc.lineAt(def.from).text.trim().startsWith('d:bf16[32,128] = dot_general[')).toBe(true);
  });

  it('finds whole-word uses only, with or without the % sigil', () => {
    const text = '%fusion.3 = f(%fusion.31, %fusion.3) fusion.3 x%fusion.3';
    expect(occurrences(text, 10, 'fusion.3')).toEqual([{ from: 10, to: 19 }, { from: 36, to: 45 }, { from: 47, to: 55 }]);
  });
});
