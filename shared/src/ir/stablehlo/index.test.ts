import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arrayBytes } from '../shape';
import { indexStablehlo } from './index';

const fixture = (program: string, file: string): string => readFileSync(new URL(`../../../../test/fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');

describe('StableHLO index', () => {
  it('decodes dot_general in pretty form, with batching dims, into axes and an einsum', () => {
    const text = [
      'func.func @main(%arg0: tensor<4x16x32xf32>, %arg1: tensor<4x32x8xf32>) -> tensor<4x16x8xf32> {',
      '  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x16x32xf32>, tensor<4x32x8xf32>) -> tensor<4x16x8xf32>',
      '  return %0 : tensor<4x16x8xf32>',
      '}',
    ].join('\n');
    const { index, diagnostics } = indexStablehlo(text);
    expect(diagnostics).toEqual([]);
    expect(index.dots).toMatchObject([{ name: '%0', scope: '@main', line: 2, lhs: [4, 16, 32], rhs: [4, 32, 8], lhsBatch: [0], rhsBatch: [0], lhsContracting: [2], rhsContracting: [1], einsum: 'bij,bjk->bik' }]);
  });

  it('decodes the generic #stablehlo.dot attribute, the older dense form, and plain dot', () => {
    const text = [
      'func.func @g(%a: tensor<3x4xf32>, %b: tensor<2x3xf32>, %v: tensor<4xf32>) -> tensor<4x2xf32> {',
      '  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>',
      '  %1 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = {lhs_batching_dimensions = dense<[]> : tensor<0xi64>, lhs_contracting_dimensions = dense<0> : tensor<1xi64>, rhs_contracting_dimensions = dense<1> : tensor<1xi64>}} : (tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>',
      '  %2 = stablehlo.dot %a, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>',
      '  return %0 : tensor<4x2xf32>',
      '}',
    ].join('\n');
    const { index } = indexStablehlo(text);
    expect(index.dots.map((d) => [d.name, d.lhsContracting, d.rhsContracting, d.einsum])).toEqual([
      ['%0', [0], [1], 'ij,ki->jk'],
      ['%1', [0], [1], 'ij,ki->jk'],
      ['%2', [1], [0], 'ij,j->i'],
    ]);
  });

  it('types while iteration arguments from the result types and outlines the cond and body regions', () => {
    const text = [
      'func.func @w(%a: tensor<i64>, %b: tensor<4xf32>) -> tensor<4xf32> {',
      '  %0:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : tensor<i64>, tensor<4xf32>',
      '   cond {',
      '    %c = stablehlo.constant dense<3> : tensor<i64>',
      '    %1 = stablehlo.compare  LT, %iterArg, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>',
      '    stablehlo.return %1 : tensor<i1>',
      '  } do {',
      '    %2 = stablehlo.add %iterArg_0, %iterArg_0 : tensor<4xf32>',
      '    stablehlo.return %iterArg, %2 : tensor<i64>, tensor<4xf32>',
      '  }',
      '  return %0#1 : tensor<4xf32>',
      '}',
    ].join('\n');
    const { index, diagnostics } = indexStablehlo(text);
    expect(diagnostics).toEqual([]);
    const byName = new Map(index.values.map((v) => [v.name, [v.type, v.bytes]]));
    expect(byName.get('%iterArg')).toEqual(['tensor<i64>', 8]);
    expect(byName.get('%iterArg_0')).toEqual(['tensor<4xf32>', 16]);
    expect(byName.get('%0#1')).toEqual(['tensor<4xf32>', 16]);
    expect(index.outline[0]?.children?.map((c) => [c.name, c.opCount])).toEqual([['%0#0 while #0', 3], ['%0#0 while #1', 2]]);
  });

  it('reports a #stablehlo.dot attribute that does not parse', () => {
    const text = 'module attributes {\n  stablehlo.dot = #stablehlo.dot<\n      rhs_batching_dimensions = [1]\n      lhs_batching_dimensions = [0]\n  >\n} {}\n';
    const { diagnostics } = indexStablehlo(text);
    expect(diagnostics.map((d) => d.message)).toEqual(["failed parsing dot dimension numbers: expected '>'"]);
    expect(text.slice(diagnostics[0]?.from, diagnostics[0]?.to)).toBe('l');
  });

  it('sizes every value of the MLP fixture from its tensor type', () => {
    const { index, diagnostics } = indexStablehlo(fixture('mlp', 'stablehlo.mlir'));
    expect(diagnostics).toEqual([]);
    const main = index.values.filter((v) => v.scope === '@main');
    expect(main.slice(0, 3).map((v) => [v.name, v.type, v.bytes])).toEqual([
      ['%arg0', 'tensor<32x64xbf16>', 32 * 64 * 2],
      ['%arg1', 'tensor<64x128xbf16>', 64 * 128 * 2],
      ['%arg2', 'tensor<128xbf16>', 128 * 2],
    ]);
    for (const v of index.values) {
      const m = /^tensor<((?:\d+x)*)(\w+)>$/.exec(v.type);
      if (m?.[2]) expect(v.bytes, v.type).toBe(arrayBytes(m[2], (m[1] ?? '').split('x').filter(Boolean).map(Number)));
    }
    expect(index.outline.map((e) => [e.kind, e.name])).toEqual([['module', '@jit_mlp']]);
    expect(index.outline[0]?.children?.map((e) => e.name)).toContain('@main');
  });

  it('keys every op of the debug-info MLP with the name stack and source line JAX recorded', () => {
    const text = fixture('mlp', 'stablehlo-debug.mlir');
    const { index } = indexStablehlo(text);
    const dot = index.keys.find((k) => k.op === 'stablehlo.dot_general');
    // the program's line of `x @ w + b`, as program.py holds it
    const program = fixture('mlp', 'program.py').split('\n');
    expect(dot?.source.opName).toMatch(/^jit\(mlp\)\/(.*\/)?dot_general$/);
    expect(program[(dot?.source.line ?? 0) - 1]).toContain('@');
    expect(dot?.source.file).toMatch(/program\.py$/);
    expect(index.dots).toMatchObject([{ lhs: [32, 64], rhs: [64, 128], einsum: 'ij,jk->ik' }]);
  });

  it('indexes the attention, scan, convolution and sharded fixtures without errors', () => {
    for (const p of ['attention', 'scan', 'conv', 'sharded', 'custom_jvp']) {
      for (const f of ['stablehlo.mlir', 'stablehlo-debug.mlir']) {
        const { index, diagnostics } = indexStablehlo(fixture(p, f));
        expect(diagnostics.filter((d) => d.severity === 'error'), `${p}/${f}`).toEqual([]);
        expect(index.keys.length, `${p}/${f}`).toBeGreaterThan(0);
      }
    }
    const att = indexStablehlo(fixture('attention', 'stablehlo.mlir')).index;
    expect(att.values.some((v) => v.type === 'tensor<8192x8192xbf16>' && v.bytes === 134_217_728)).toBe(true);
    expect(att.dots.map((d) => d.einsum)).toEqual(['ij,jk->ik', 'ij,jk->ik']);
  });
});
