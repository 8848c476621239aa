import { StringStream, type StreamParser } from '@codemirror/language';
import { Text } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { blockEnd } from './fold';
import { hloParser } from './hlo';
import { jaxprParser } from './jaxpr';
import { mlirParser } from './mlir';

import attentionHlo from '../../../../../test/fixtures/ir/attention/hlo-opt.txt?raw';
import mlpJaxpr from '../../../../../test/fixtures/ir/mlp/jaxpr.txt?raw';
import mlpShloDebug from '../../../../../test/fixtures/ir/mlp/stablehlo-debug.mlir?raw';
import mlpShlo from '../../../../../test/fixtures/ir/mlp/stablehlo.mlir?raw';
import scanJaxpr from '../../../../../test/fixtures/ir/scan/jaxpr.txt?raw';

const FIXTURES: Record<string, string> = { 'mlp/jaxpr.txt': mlpJaxpr, 'mlp/stablehlo-debug.mlir': mlpShloDebug, 'attention/hlo-opt.txt': attentionHlo, 'scan/jaxpr.txt': scanJaxpr };

/** Every token of `text` with its style, as CodeMirror's stream language would produce them. */
function tokens<S>(parser: StreamParser<S>, text: string): Array<[string, string | null]> {
  const state = parser.startState!(2);
  const out: Array<[string, string | null]> = [];
  for (const line of text.split('\n')) {
    const stream = new StringStream(line, 2, 2);
    while (!stream.eol()) {
      const style = parser.token(stream, state);
      if (stream.pos === stream.start) throw new Error(`no progress at ${stream.pos} of ${JSON.stringify(line)}`);
      out.push([stream.current(), style]);
      stream.start = stream.pos;
    }
  }
  return out;
}

const styleOf = (toks: Array<[string, string | null]>, text: string) => toks.find(([t]) => t === text)?.[1];

describe('IR languages', () => {
  it('highlights an HLO instruction: name, type with layout, opcode, attributes and targets', () => {
    const t = tokens(hloParser, '  ROOT %fusion.3 = bf16[8192,8192]{1,0} fusion(%p.1), kind=kLoop, calls=%fused_computation.3 /* x */');
    expect(styleOf(t, 'ROOT')).toBe('keyword');
    expect(styleOf(t, '%fusion.3')).toBe('variableName.definition');
    expect(styleOf(t, 'bf16[8192,8192]{1,0}')).toBe('typeName');
    expect(styleOf(t, 'fusion')).toBe('keyword');
    expect(styleOf(t, '%p.1')).toBe('variableName');
    expect(styleOf(t, 'kind')).toBe('propertyName');
    expect(styleOf(t, '%fused_computation.3')).toBe('variableName');
    expect(styleOf(t, '/*')).toBe('comment');
    expect(styleOf(t, ' x */')).toBe('comment');
  });

  it('highlights a StableHLO op with its types, attributes and location', () => {
    const t = tokens(mlirParser, '    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32> loc(#loc3)');
    expect(styleOf(t, '%0')).toBe('variableName.definition');
    expect(styleOf(t, 'stablehlo.dot_general')).toBe('keyword');
    expect(styleOf(t, '%arg0')).toBe('variableName');
    expect(styleOf(t, 'contracting_dims')).toBe('propertyName');
    expect(styleOf(t, 'tensor<')).toBe('typeName');
    expect(styleOf(t, '16x32xf32')).toBe('typeName');
    expect(styleOf(t, 'loc')).toBe('comment');
    expect(styleOf(t, '#loc3')).toBe('meta');
  });

  it('highlights a jaxpr equation, its primitive, parameters and a sub-jaxpr primitive', () => {
    const text = ['{ lambda ; a:f32[16,32]. let', '    c:f32[16,32] = dot_general[', '      dimension_numbers=(([1], [0]), ([], []))', '      jaxpr={ lambda ; d:f32[]. let e:f32[] = sin d in (e,) }', '    ] a b', '  in (c,) }'].join('\n');
    const t = tokens(jaxprParser, text);
    expect(styleOf(t, 'lambda')).toBe('keyword');
    expect(styleOf(t, 'c')).toBe('variableName.definition');
    expect(styleOf(t, 'f32[16,32]')).toBe('typeName');
    expect(styleOf(t, 'dot_general')).toBe('keyword');
    expect(styleOf(t, 'dimension_numbers')).toBe('propertyName');
    expect(styleOf(t, 'sin')).toBe('keyword');
  });

  it.each([
    ['mlp/jaxpr.txt', jaxprParser],
    ['mlp/stablehlo-debug.mlir', mlirParser],
    ['attention/hlo-opt.txt', hloParser],
    ['scan/jaxpr.txt', jaxprParser],
  ] as const)('tokenizes the real dump %s to the end, always advancing', (file, parser) => {
    const text = FIXTURES[file] ?? '';
    expect(text.length).toBeGreaterThan(0);
    const t = tokens(parser as StreamParser<unknown>, text);
    expect(t.map(([s]) => s).join('')).toBe(text.replace(/\n/g, ''));
    expect(t.some(([, s]) => s === 'keyword')).toBe(true);
  });
});

describe('IR folding', () => {
  it('folds an HLO computation to its closing brace and leaves instructions unfoldable', () => {
    const doc = Text.of(['HloModule m', '', '%fc (p: f32[4]) -> f32[4] {', '  %p = f32[4]{0} parameter(0)', '  ROOT %n = f32[4]{0} negate(%p)', '}', '', 'ENTRY %main {', '  ROOT %f = f32[4]{0} fusion(), calls=%fc', '}']);
    expect(blockEnd(doc, 3)).toBe(doc.line(6).to);
    expect(blockEnd(doc, 4)).toBeNull();
    expect(blockEnd(doc, 8)).toBe(doc.line(10).to);
  });

  it('folds a jaxpr and its let block up to the closing in', () => {
    const doc = Text.of(['{ lambda ; a:f32[]. let', '    b:f32[] = sin a', '    c:f32[] = cos b', '  in (c,) }']);
    expect(blockEnd(doc, 1)).toBe(doc.line(4).to);
  });

  it('folds every function of the real StableHLO dump', () => {
    const text = mlpShlo;
    const doc = Text.of(text.split('\n'));
    const funcs = text.split('\n').flatMap((l: string, i: number) => (/^\s*func\.func/.test(l) ? [i + 1] : []));
    expect(funcs.length).toBeGreaterThan(0);
    for (const n of funcs) {
      const end = blockEnd(doc, n);
      expect(end).not.toBeNull();
      expect(doc.lineAt(end!).text.trim()).toBe('}');
    }
  });
});
