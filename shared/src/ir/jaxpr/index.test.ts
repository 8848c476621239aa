import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexJaxpr, jaxprArrayType, jaxprDotDimensions } from './index';

const fixture = (program: string, file: string): string => readFileSync(new URL(`../../../../test/fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');

describe('jaxpr index', () => {
  it('decodes dimension_numbers in the current and the legacy printer', () => {
    expect(jaxprDotDimensions('(([1], [0]), ([], []))')).toEqual({ lhsContracting: [1], rhsContracting: [0], lhsBatch: [], rhsBatch: [] });
    expect(jaxprDotDimensions('(((2,), (1,)), ((0,), (0,)))')).toEqual({ lhsContracting: [2], rhsContracting: [1], lhsBatch: [0], rhsBatch: [0] });
  });

  it('reads jaxpr types, including symbolic dims and refs', () => {
    expect(jaxprArrayType('f32[16,32]')).toEqual({ dtype: 'f32', dims: [16, 32] });
    expect(jaxprArrayType('bool[]')).toEqual({ dtype: 'bool', dims: [] });
    expect(jaxprArrayType('f32[b,4]')).toEqual({ dtype: 'f32', dims: [-1, 4] });
    expect(jaxprArrayType('MemRef<None>{float32[8,128]}')).toEqual({ dtype: 'float32', dims: [8, 128] });
    expect(jaxprArrayType('')).toBeUndefined();
  });

  it('decodes a batched dot_general from operand types into an einsum', () => {
    const text = '{ lambda ; a:f32[4,16,32] b:f32[4,32,8]. let\n    c:f32[4,16,8] = dot_general[\n      dimension_numbers=(([2], [1]), ([0], [0]))\n      precision=None\n    ] a b\n  in (c,) }';
    const { index, diagnostics } = indexJaxpr(text);
    expect(diagnostics).toEqual([]);
    expect(index.dots).toMatchObject([{ name: 'c', line: 2, lhs: [4, 16, 32], rhs: [4, 32, 8], lhsBatch: [0], rhsBatch: [0], lhsContracting: [2], rhsContracting: [1], einsum: 'bij,bjk->bik' }]);
  });

  it('decodes the MLP fixture: values in bytes, the dot_general, and keys with name stack and source', () => {
    const text = fixture('mlp', 'jaxpr.txt');
    const { index, diagnostics } = indexJaxpr(text);
    expect(diagnostics).toEqual([]);
    expect(index.kind).toBe('jaxpr');
    expect(index.values.filter((v) => v.scope === 'main').slice(0, 4).map((v) => [v.name, v.type, v.bytes])).toEqual([
      ['a', 'bf16[32,64]', 4096],
      ['b', 'bf16[64,128]', 16384],
      ['c', 'bf16[128]', 256],
      ['d', 'bf16[32,128]', 8192],
    ]);
    expect(index.dots).toMatchObject([{ name: 'd', scope: 'main', lhs: [32, 64], rhs: [64, 128], lhsContracting: [1], rhsContracting: [0], einsum: 'ij,jk->ik' }]);
    const dot = index.keys.find((k) => k.op === 'dot_general');
    expect(dot?.source).toMatchObject({ opName: 'dot_general', file: 'program.py', line: 5 });
    // JAX prints Python's 0-based column offset
    expect(fixture('mlp', 'program.py').split('\n')[(dot?.source.line ?? 0) - 1]?.slice(dot?.source.column)).toMatch(/^x @ w/);
    // relu's max runs inside `jit(relu)`, under custom_jvp_call, as XLA's name stack records it
    expect(index.keys.find((k) => k.op === 'max')?.source.opName).toBe('jit(relu)/max');
    expect(index.outline[0]).toMatchObject({ name: 'main', kind: 'jaxpr', lineFrom: 1, opCount: 8 });
    expect(index.outline[0]?.children?.[0]?.name).toBe('main/custom_jvp_call.call_jaxpr');
  });

  it('indexes every real-JAX fixture with no errors and a key per equation', () => {
    for (const p of ['attention', 'scan', 'conv', 'sharded', 'custom_jvp']) {
      const text = fixture(p, 'jaxpr.txt');
      const { index, diagnostics } = indexJaxpr(text);
      expect(diagnostics, p).toEqual([]);
      const eqLines = text.split('\n').filter((l) => /^\s*[\w:[\], ]+ = [a-z_]+/.test(l.replace(/#.*$/, ''))).length;
      expect(index.keys.length, p).toBe(eqLines);
    }
  });
});
