import { describe, expect, it } from 'vitest';
import type { MlirOperation } from './ast';
import { parseMlir, splitChunks } from './parser';

/** Every operation of the first chunk, depth first. */
function ops(text: string): MlirOperation[] {
  const out: MlirOperation[] = [];
  const walk = (list: readonly MlirOperation[]): void => {
    for (const op of list) {
      out.push(op);
      for (const r of op.regions) for (const b of r.blocks) walk(b.ops);
    }
  };
  for (const c of parseMlir(text).ast.chunks) walk(c.ops);
  return out;
}

function errors(text: string): string[] {
  return parseMlir(text).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
}

describe('MLIR parser', () => {
  it('reads pretty-form ops with results, operands, pretty attributes, signature and loc', () => {
    const text = [
      'func.func @main(%arg0: tensor<16x32xf32> loc("x"), %arg1: tensor<32x8xf32>) -> (tensor<16x8xf32> {jax.result_info = "result"}) {',
      '  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32> loc(#loc3)',
      '  return %0 : tensor<16x8xf32>',
      '}',
    ].join('\n');
    expect(errors(text)).toEqual([]);
    const [func, dot, ret] = ops(text);
    expect(func?.name).toBe('func.func');
    expect(func?.symbol).toBe('@main');
    expect(func?.args.map((a) => [a.name, a.type])).toEqual([['%arg0', 'tensor<16x32xf32>'], ['%arg1', 'tensor<32x8xf32>']]);
    expect(func?.resultTypes).toEqual(['tensor<16x8xf32>']);
    expect(dot?.results.map((r) => r.name)).toEqual(['%0']);
    expect(dot?.operands.map((o) => o.name)).toEqual(['%arg0', '%arg1']);
    expect(dot?.attributes.find((a) => a.key === 'contracting_dims')?.value).toBe('[1] x [0]');
    expect(dot?.operandTypes).toEqual(['tensor<16x32xf32>', 'tensor<32x8xf32>']);
    expect(dot?.resultTypes).toEqual(['tensor<16x8xf32>']);
    expect(text.slice(dot?.loc?.from, dot?.loc?.to)).toBe('loc(#loc3)');
    expect(dot?.line).toBe(2);
    expect(ret?.name).toBe('return');
  });

  it('reads generic-form ops with regions, block arguments and multi-line attribute dictionaries', () => {
    const text = [
      'func.func @test_all_reduce(%arg0: tensor<10xf32>) -> tensor<10xf32> {',
      '  %0 = "stablehlo.all_reduce"(%arg0) ({',
      '  // Perform max reduction inside the region',
      '  ^bb0(%lhs: tensor<f32>, %rhs: tensor<f32>):',
      '    %max = stablehlo.maximum %lhs, %rhs : tensor<f32>',
      '    "stablehlo.return"(%max) : (tensor<f32>) -> ()',
      '  })',
      '  {',
      '    replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>,',
      '    channel_handle = #stablehlo.channel_handle<',
      '      handle = 5,',
      '      type = 2',
      '    >',
      '  } : (tensor<10xf32>) -> tensor<10xf32>',
      '  func.return %0 : tensor<10xf32>',
      '}',
    ].join('\n');
    expect(errors(text)).toEqual([]);
    const all = ops(text);
    const reduce = all.find((o) => o.name === 'stablehlo.all_reduce');
    expect(reduce?.generic).toBe(true);
    expect(reduce?.attributes.map((a) => a.key)).toEqual(['replica_groups', 'channel_handle']);
    expect(reduce?.regions[0]?.blocks[0]?.label).toBe('^bb0');
    expect(reduce?.regions[0]?.blocks[0]?.args.map((a) => a.type)).toEqual(['tensor<f32>', 'tensor<f32>']);
    expect(reduce?.resultTypes).toEqual(['tensor<10xf32>']);
    expect(all.map((o) => o.name)).toEqual(['func.func', 'stablehlo.all_reduce', 'stablehlo.maximum', 'stablehlo.return', 'func.return']);
  });

  it('reads while with cond/do regions, multi-result ops and their types', () => {
    const text = [
      'func.func @w(%a: tensor<i64>, %b: tensor<i64>) -> tensor<i64> {',
      '  %0:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : tensor<i64>, tensor<i64>',
      '   cond {',
      '    %1 = stablehlo.compare  LT, %iterArg, %iterArg_0,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>',
      '    stablehlo.return %1 : tensor<i1>',
      '  } do {',
      '    stablehlo.return %iterArg, %iterArg_0 : tensor<i64>, tensor<i64>',
      '  }',
      '  return %0#0 : tensor<i64>',
      '}',
    ].join('\n');
    expect(errors(text)).toEqual([]);
    const w = ops(text).find((o) => o.name === 'stablehlo.while');
    expect(w?.results.map((r) => r.name)).toEqual(['%0#0', '%0#1']);
    expect(w?.resultTypes).toEqual(['tensor<i64>', 'tensor<i64>']);
    expect(w?.regions).toHaveLength(2);
    expect(w?.args.map((a) => a.name)).toEqual(['%iterArg', '%iterArg_0']);
  });

  it('reads convolution window dictionaries, quantized types and shardy ops', () => {
    const text = [
      'func.func @c(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64> {',
      '  %result = stablehlo.convolution(%lhs, %rhs)',
      '    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],',
      '    window = {',
      '      stride = [4, 4],',
      '      lhs_dilate = [2, 2]',
      '    } {',
      '      batch_group_count = 1 : i64,',
      '      feature_group_count = 1 : i64',
      '    }',
      '  : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>',
      '  %q = stablehlo.uniform_quantize %lhs : (tensor<1x4x4x1xi64>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>',
      '  %s = sdy.manual_computation(%lhs) in_shardings=[<@mesh, [{"x"}, {}, {}, {}]>] out_shardings=[<@mesh, [{"x"}, {}, {}, {}]>] manual_axes={"x"} (%arg2: tensor<1x4x4x1xi64>) {',
      '    sdy.return %arg2 : tensor<1x4x4x1xi64>',
      '  } : (tensor<1x4x4x1xi64>) -> tensor<1x4x4x1xi64>',
      '  return %result : tensor<1x2x2x1xi64>',
      '}',
    ].join('\n');
    expect(errors(text)).toEqual([]);
    const all = ops(text);
    const conv = all.find((o) => o.name === 'stablehlo.convolution');
    expect(conv?.attributes.map((a) => a.key)).toEqual(['dim_numbers', 'window', 'batch_group_count', 'feature_group_count']);
    expect(conv?.resultTypes).toEqual(['tensor<1x2x2x1xi64>']);
    expect(all.find((o) => o.name === 'stablehlo.uniform_quantize')?.resultTypes).toEqual(['tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>']);
    const manual = all.find((o) => o.name === 'sdy.manual_computation');
    expect(manual?.regions).toHaveLength(1);
    expect(manual?.resultTypes).toEqual(['tensor<1x4x4x1xi64>']);
  });

  it('splits `// -----` modules and keeps `#loc` aliases per chunk', () => {
    const text = '#loc1 = loc("a.py":1:2)\nfunc.func @a() {\n  return\n}\n// -----\n#loc1 = loc("b.py":3:4)\nmodule @m {\n}\n';
    expect(splitChunks(text)).toHaveLength(2);
    const { ast, diagnostics } = parseMlir(text);
    expect(diagnostics).toEqual([]);
    expect(ast.chunks.map((c) => [...c.locAliases.keys()])).toEqual([['#loc1'], ['#loc1']]);
    expect(ast.chunks[1]?.ops[0]?.symbol).toBe('@m');
  });

  it('treats // RUN and // CHECK lines as comments', () => {
    const text = '// RUN: stablehlo-opt %s | FileCheck %s\n// CHECK-LABEL: func @f\nfunc.func @f(%a: tensor<f32>) -> tensor<f32> {\n  // CHECK: stablehlo.abs\n  %0 = stablehlo.abs %a : tensor<f32>\n  func.return %0 : tensor<f32>\n}\n';
    expect(errors(text)).toEqual([]);
    expect(ops(text).map((o) => o.name)).toEqual(['func.func', 'stablehlo.abs', 'func.return']);
  });

  it('reports an unclosed region, a missing `=` and an unterminated string with spans in the text', () => {
    const cases = [
      'func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.abs %a : tensor<f32>\n',
      'func.func @f() {\n  %0 stablehlo.constant dense<1.0> : tensor<f32>\n}\n',
      'func.func @f() {\n  %0 = stablehlo.custom_call @x() {backend_config = "abc} : () -> tensor<f32>\n}\n',
      'func.func @f() {\n  %0 = stablehlo.abs %a : tensor<f32>)\n}\n',
    ];
    for (const text of cases) {
      const { diagnostics } = parseMlir(text);
      expect(diagnostics.filter((d) => d.severity === 'error').length, text).toBeGreaterThan(0);
      for (const d of diagnostics) expect(d.from >= 0 && d.to <= text.length && d.from <= d.to).toBe(true);
    }
  });
});

describe('MLIR parser limits', () => {
  it('skips regions nested past 256 levels with one error instead of exhausting the stack', () => {
    const n = 5000;
    const text = `func.func @f() {\n${'"a.b"() ({\n'.repeat(n)}${'})\n'.repeat(n)}}\n`;
    const { diagnostics } = parseMlir(text);
    expect(diagnostics.map((d) => d.message)).toEqual(['regions nested deeper than 256 levels are not read']);
  });
});
