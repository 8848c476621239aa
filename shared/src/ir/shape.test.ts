import { describe, expect, it } from 'vitest';
import { arrayBytes, dtypeBits, valueBytes } from './shape';

describe('dtype sizes', () => {
  it('knows the same element type in every dialect spelling', () => {
    for (const [a, b] of [['pred', 'i1'], ['s8', 'si8'], ['s8', 'i8'], ['u8', 'ui8'], ['f32', 'float32'], ['c64', 'complex<f32>'], ['c128', 'complex<f64>'], ['bf16', 'bfloat16']] as const) {
      expect(dtypeBits(a), `${a} vs ${b}`).toBe(dtypeBits(b));
    }
  });

  it('sizes the float8 family whatever its capitalisation', () => {
    expect(dtypeBits('f8e4m3fn')).toBe(8);
    expect(dtypeBits('f8E4M3FN')).toBe(8);
    expect(dtypeBits('f8E5M2FNUZ')).toBe(8);
    expect(dtypeBits('float8_e4m3b11fnuz')).toBe(8);
  });

  it('gives tokens no bytes and unknown names no size', () => {
    expect(arrayBytes('token', [])).toBe(0);
    expect(dtypeBits('notatype')).toBeUndefined();
    expect(arrayBytes('notatype', [4])).toBe(0);
  });

  it('rounds packed sub-byte arrays up to whole bytes once per array', () => {
    expect(arrayBytes('s4', [3])).toBe(2);
    expect(arrayBytes('u4', [8192, 128])).toBe(524_288);
    expect(arrayBytes('u2', [5])).toBe(2);
    expect(arrayBytes('pred', [10])).toBe(10);
  });

  it('multiplies dims by element bytes and sums tuple leaves', () => {
    expect(arrayBytes('bf16', [8192, 8192])).toBe(134_217_728);
    expect(arrayBytes('f32', [8192, 8192])).toBe(268_435_456);
    expect(arrayBytes('f32', [])).toBe(4);
    expect(valueBytes({ tuple: [{ dtype: 'f32', dims: [2] }, { tuple: [{ dtype: 's32', dims: [] }] }] })).toBe(12);
  });

  it('cannot size a dynamic dimension', () => {
    expect(arrayBytes('f32', [-1, 4])).toBe(0);
  });
});
