import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectKind } from './detect';
import { indexJaxpr } from './jaxpr/index';
import { linkLayers } from './link';
import { checkDiagnostics } from './parser-contract';
import { indexStablehlo } from './stablehlo/index';

/** Fragments of real MLIR and jaxpr syntax, shuffled into texts no printer would write. */
const FRAGMENTS = [
  '{', '}', '(', ')', '[', ']', '<', '>', ',', ':', '=', '->', '<-', ';', '.', '*', '\n', ' ', '"', '#', '//', '// -----\n',
  '%0', '%arg0', '%0:2', '%0#1', '^bb0', '@main', '#loc1', '#loc1 = ', 'loc(', 'loc(unknown)', 'callsite(', ' at ', 'fused[', '"f.py":3:4',
  'func.func', 'module', 'stablehlo.dot_general', '"stablehlo.add"', 'return', 'tensor<16x32xf32>', 'tensor<?x4xbf16>', 'tuple<', '!stablehlo.token',
  'contracting_dims = [1] x [0]', '#stablehlo.dot<lhs_batching_dimensions = [0]', 'dense<1.0>', 'cond', 'do',
  '{ lambda ', 'lambda', 'let', 'in', 'a', 'b:f32[4]', 'dot_general', 'dimension_numbers=(([1], [0]), ([], []))', 'jaxpr=', 'jit', 'name=f',
  '1.0:f32[]', '_', '# prog.py:3:4 (f)', '# [jit(f)]', '<a id="v_a">', '</a>',
];

const soup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 120 }).map((parts) => parts.join(''));

describe('MLIR and jaxpr on token soup', () => {
  it('never throw, keep every diagnostic span inside the text, and link whatever they read', () => {
    fc.assert(
      fc.property(soup, (text) => {
        const s = indexStablehlo(text);
        const j = indexJaxpr(text);
        expect(checkDiagnostics(text, s.diagnostics)).toEqual([]);
        expect(checkDiagnostics(text, j.diagnostics)).toEqual([]);
        expect(linkLayers(j, s, s).length).toBe(j.index.keys.length);
        detectKind(text);
      }),
      { numRuns: 1500, seed: 20261129 },
    );
  });
});
