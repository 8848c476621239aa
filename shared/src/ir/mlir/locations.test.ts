import { describe, expect, it } from 'vitest';
import { LocResolver } from './locations';
import { parseMlir } from './parser';
import { parseMlirType } from './types';

/** The source of the first op named `name`, resolved through the chunk's aliases. */
function sourceOf(text: string, name: string): unknown {
  const chunk = parseMlir(text).ast.chunks[0];
  if (!chunk) return undefined;
  const find = (ops: typeof chunk.ops): (typeof chunk.ops)[number] | undefined => {
    for (const op of ops) {
      if (op.name === name) return op;
      for (const r of op.regions) for (const b of r.blocks) {
        const hit = find(b.ops);
        if (hit) return hit;
      }
    }
    return undefined;
  };
  return new LocResolver(text, chunk).resolve(find(chunk.ops)?.loc);
}

describe('MLIR locations', () => {
  it('resolves JAX debug-info aliases: name stack from the name location, file/line/column from the callee', () => {
    const text = [
      '#loc = loc(unknown)',
      'module @jit_mlp {',
      '  func.func public @main(%arg0: tensor<32x64xbf16> loc("x"), %arg1: tensor<64x128xbf16> loc("w")) -> tensor<32x128xbf16> {',
      '    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<32x64xbf16>, tensor<64x128xbf16>) -> tensor<32x128xbf16> loc(#loc22)',
      '    return %0 : tensor<32x128xbf16> loc(#loc)',
      '  } loc(#loc)',
      '} loc(#loc)',
      '#loc4 = loc("/tmp/jx.py":3:23 to :28)',
      '#loc5 = loc("/tmp/jx.py":8:5 to :30)',
      '#loc11 = loc("mlp"(#loc4))',
      '#loc12 = loc("<module>"(#loc5))',
      '#loc17 = loc(callsite(#loc11 at #loc12))',
      '#loc22 = loc("jit(mlp)/dot_general"(#loc17))',
    ].join('\n');
    expect(sourceOf(text, 'stablehlo.dot_general')).toEqual({ opName: 'jit(mlp)/dot_general', file: '/tmp/jx.py', line: 3, column: 23 });
    expect(sourceOf(text, 'return')).toEqual({});
  });

  it('reads inline file, fused and escaped locations, and survives alias cycles', () => {
    const text = [
      'func.func @f(%a: tensor<f32>) -> tensor<f32> {',
      '  %0 = stablehlo.abs %a : tensor<f32> loc("a.py":12:3)',
      '  %1 = stablehlo.negate %0 : tensor<f32> loc(fused<"x">["jit(f)/neg", "b.py":7:1])',
      '  %2 = stablehlo.sine %1 : tensor<f32> loc("say \\22hi\\22"("c.py":9:2))',
      '  %3 = stablehlo.cosine %2 : tensor<f32> loc(#loc1)',
      '  return %3 : tensor<f32>',
      '}',
      '#loc1 = loc("cycle"(#loc2))',
      '#loc2 = loc(callsite(#loc1 at "d.py":1:1))',
    ].join('\n');
    expect(sourceOf(text, 'stablehlo.abs')).toEqual({ file: 'a.py', line: 12, column: 3 });
    expect(sourceOf(text, 'stablehlo.negate')).toEqual({ opName: 'jit(f)/neg', file: 'b.py', line: 7, column: 1 });
    expect(sourceOf(text, 'stablehlo.sine')).toEqual({ opName: 'say "hi"', file: 'c.py', line: 9, column: 2 });
    expect(sourceOf(text, 'stablehlo.cosine')).toMatchObject({ opName: 'cycle', file: 'd.py', line: 1 });
  });
});

describe('MLIR types', () => {
  it('reads ranked, dynamic, scalar, complex, quantized, token and tuple types', () => {
    expect(parseMlirType('tensor<16x32xf32>')).toEqual({ dtype: 'f32', dims: [16, 32] });
    expect(parseMlirType('tensor<?x4xbf16>')).toEqual({ dtype: 'bf16', dims: [-1, 4] });
    expect(parseMlirType('tensor<f32>')).toEqual({ dtype: 'f32', dims: [] });
    expect(parseMlirType('tensor<2xcomplex<f32>>')).toEqual({ dtype: 'complex<f32>', dims: [2] });
    expect(parseMlirType('tensor<4xf32, #stablehlo.bounds<?>>')).toEqual({ dtype: 'f32', dims: [4] });
    expect(parseMlirType('tensor<2x!quant.uniform<i8:f32, 1.0:0>>')).toEqual({ dtype: 'i8', dims: [2] });
    expect(parseMlirType('!stablehlo.token')).toEqual({ dtype: 'token', dims: [] });
    expect(parseMlirType('tuple<tensor<2xf32>, tensor<i32>>')).toEqual({ tuple: [{ dtype: 'f32', dims: [2] }, { dtype: 'i32', dims: [] }] });
    expect(parseMlirType('memref<8x128xf32, #tpu.memory_space<vmem>>')).toEqual({ dtype: 'f32', dims: [8, 128] });
    expect(parseMlirType('(tensor<f32>) -> tensor<f32>')).toBeUndefined();
  });
});

describe('MLIR location limits', () => {
  it('resolves a long alias chain without exhausting the stack', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `#loc${i + 1} = loc("n${i + 1}"(#loc${i}))`).join('\n');
    const text = `#loc0 = loc("a.py":1:0)\n${chain}\nfunc.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a : tensor<f32> loc(#loc5000)\n}\n`;
    expect(sourceOf(text, 'stablehlo.abs')).toMatchObject({ opName: 'n5000' });
  });
});
