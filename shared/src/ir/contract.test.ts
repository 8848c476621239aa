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
      '#loc1 = loc("x")\nmodule @jit_f {\n  func.func public @main(%arg0: tensor<8xf32> loc("x")) -> tensor<f32> {\n    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc3)\n    %0 = "stablehlo.reduce"(%arg0, %cst) ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %1 = stablehlo.add %a, %b : tensor<f32> loc(#loc3)\n      "stablehlo.return"(%1) : (tensor<f32>) -> ()\n    }) {dimensions = array<i64: 0>} : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc(#loc3)\n    return %0 : tensor<f32> loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n#loc = loc(unknown)\n#loc2 = loc("f.py":3:9)\n#loc3 = loc("jit(f)/reduce_sum"(#loc2))\n',
      '// RUN: stablehlo-opt %s | FileCheck %s\n// CHECK-LABEL: func @a\nfunc.func @a(%x: tensor<2xi1>) -> tensor<2xi1> {\n  %0 = stablehlo.not %x : tensor<2xi1>\n  func.return %0 : tensor<2xi1>\n}\n// -----\nfunc.func @b(%x: !stablehlo.token) -> !stablehlo.token {\n  func.return %x : !stablehlo.token\n}\n',
    ],
    invalid: [
      'func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n  return %0 : tensor<4xf32>\n',
      'func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %arg0 : tensor<4xf32\n  return %0 : tensor<4xf32>\n}\n',
      'func.func @main() -> tensor<f32> {\n  %0 stablehlo.constant dense<1.0> : tensor<f32>\n  return %0 : tensor<f32>\n}\n',
      'func.func @main() {\n  %0 = stablehlo.custom_call @f() {backend_config = "unterminated} : () -> tensor<f32>\n}\n',
      'module attributes {stablehlo.dot = #stablehlo.dot<lhs_batching_dimensions = [0] rhs_batching_dimensions = [0]>} {}\n',
    ],
  },
  {
    name: 'jaxpr',
    parse: (t) => parseJaxpr(t),
    index: indexJaxpr,
    valid: [
      '{ lambda ; a:f32[16,32] b:f32[32,32]. let\n    c:f32[16,32] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n  in (c,) }\n',
      '{ lambda ; a:f32[4]. let b:f32[4] = neg a; c:f32[4] = sin b in (c,) }\n',
      '{ lambda  ; a b.\n  let c = xla_call[ backend=None\n                  call_jaxpr={ lambda  ; a b.\n                               let c = mul a b\n                               in (c,) }\n                  name=f ] a b\n      _ d = scan[ jaxpr={ lambda ; e f. let g = add e f in (*, g) } length=2 ] 1.0 c\n  in (d,) }\n',
      'let f = { lambda ; a:f32[1]. let b:f32[1] = mul a a in (b,) } in\n{ lambda ; c:f32[1]. let\n    d:f32[1] = pjit[name=f jaxpr=f] c   # prog.py:3:4 (g)\n                                        # [outer]\n  in (d,) }\n',
    ],
    invalid: [
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n  in (b,)\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = dot_general[dimension_numbers=(([1], [0]) a a\n  in (b,) }\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = neg a\n }\n',
      '{ lambda ; a:f32[4]. let\n    b:f32[4] = ) a\n  in (b,) }\n',
      'not a jaxpr at all\n',
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
