import { describe, expect, it } from 'vitest';
import { parseHlo } from './hlo/parser';
import { indexHlo } from './hlo/index';
import { parseJaxpr } from './jaxpr/parser';
import { indexJaxpr } from './jaxpr/index';
import { parseMlir } from './mlir/parser';
import { indexStablehlo } from './stablehlo/index';
import { checkDiagnostics, type ParserUnderContract } from './parser-contract';

/** The three dialect parsers, each with small valid texts and texts that each hold one syntax error. */
const PARSERS: readonly ParserUnderContract[] = [
  {
    name: 'HLO',
    parse: parseHlo,
    index: (t) => indexHlo(t, 'hlo-opt'),
    valid: [
      'HloModule m\nENTRY e {\n  p = f32[16,32]{1,0} parameter(0)\n  q = f32[32,32]{1,0} parameter(1)\n  ROOT d = f32[16,32]{1,0} dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n',
      'ENTRY %e (a: (f32[2], s32[])) -> f32[2] {\n  %a = (f32[2]{0}, s32[]) parameter(0)\n  ROOT %g = f32[2]{0} get-tuple-element(%a), index=0\n}',
    ],
    invalid: [
      'HloModule m\nENTRY e {\n  ROOT c = f32[2 constant({1, 2})\n}',
      'HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n',
      'HloModule m\nENTRY e {\n  c = f32[] = constant(1)\n}',
    ],
  },
  {
    name: 'StableHLO',
    parse: (t) => parseMlir(t),
    index: indexStablehlo,
    valid: [
      'func.func @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x32xf32>) -> tensor<16x32xf32> {\n  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>\n  return %0 : tensor<16x32xf32>\n}\n',
      'module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {\n    %0 = stablehlo.negate %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n',
    ],
    invalid: [
      'func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n  return %0 : tensor<4xf32>\n',
      'func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32\n  return %0 : tensor<4xf32>\n}\n',
    ],
  },
  {
    name: 'jaxpr',
    parse: (t) => parseJaxpr(t),
    index: indexJaxpr,
    valid: [
      '{ lambda ; a:f32[16,32] b:f32[32,32]. let\n    c:f32[16,32] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n  in (c,) }\n',
      '{ lambda ; a:f32[4]. let b:f32[4] = neg a; c:f32[4] = sin b in (c,) }\n',
    ],
    invalid: [
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n  in (b,)\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = dot_general[dimension_numbers=(([1], [0]) a a\n  in (b,) }\n',
    ],
  },
];

for (const p of PARSERS) {
  describe(`${p.name} parser contract`, () => {
    it('handles empty and whitespace-only input: an empty index and in-range spans', () => {
      for (const t of ['', '\n', '   \n\t\n']) {
        const a = p.index(t);
        expect(checkDiagnostics(t, a.diagnostics)).toEqual([]);
        expect(a.index.values).toEqual([]);
      }
    });

    it('reads every valid sample with no error and a non-empty index', () => {
      for (const t of p.valid) {
        const parsed = p.parse(t);
        expect(parsed.diagnostics.filter((d) => d.severity === 'error'), t).toEqual([]);
        const a = p.index(t);
        expect(a.diagnostics.filter((d) => d.severity === 'error'), t).toEqual([]);
        expect(a.index.values.length, t).toBeGreaterThan(0);
        expect(a.index.keys.length, t).toBeGreaterThan(0);
        expect(a.index.outline.length, t).toBeGreaterThan(0);
      }
    });

    it('gives each invalid sample an error diagnostic with a span inside the text', () => {
      for (const t of p.invalid) {
        const a = p.index(t);
        expect(a.diagnostics.some((d) => d.severity === 'error'), t).toBe(true);
        expect(checkDiagnostics(t, a.diagnostics)).toEqual([]);
      }
    });

    it('never throws on any prefix of a valid sample and keeps spans in range', () => {
      for (const t of p.valid) {
        for (let n = 0; n <= t.length; n++) {
          const cut = t.slice(0, n);
          expect(checkDiagnostics(cut, p.index(cut).diagnostics), `prefix ${n}`).toEqual([]);
        }
      }
    });

    it('decodes the 16x32 · 32x32 dot as ij,jk->ik', () => {
      const dots = p.index(p.valid[0] ?? '').index.dots;
      expect(dots.map((d) => d.einsum)).toEqual(['ij,jk->ik']);
    });
  });
}
