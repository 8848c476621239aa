import type { ValueType } from './types';

/**
 * Element sizes in bits, in every dialect's spelling: HLO (`pred`, `s8`, `u4`, `bf16`, `c64`),
 * MLIR/StableHLO (`i1`, `i8`, `si8`, `ui8`, `f8E4M3FN`, `complex<f32>`, `index`) and jaxpr
 * (`bool`, `int8`, `uint8`, `float32`, `f8_e4m3fn`). Lookups are case-insensitive for the float8
 * family, whose capitalisation differs between HLO (`f8e4m3fn`) and MLIR (`f8E4M3FN`).
 */
const BITS: ReadonlyMap<string, number> = new Map<string, number>([
  ['pred', 8], ['i1', 8], ['bool', 8],
  ['token', 0], ['opaque', 0], ['none', 0],
  ['s1', 1], ['u1', 1], ['s2', 2], ['u2', 2], ['s4', 4], ['u4', 4], ['i2', 2], ['i4', 4], ['si4', 4], ['ui4', 4], ['int4', 4], ['uint4', 4],
  ['s8', 8], ['u8', 8], ['i8', 8], ['si8', 8], ['ui8', 8], ['int8', 8], ['uint8', 8],
  ['s16', 16], ['u16', 16], ['i16', 16], ['si16', 16], ['ui16', 16], ['int16', 16], ['uint16', 16],
  ['s32', 32], ['u32', 32], ['i32', 32], ['si32', 32], ['ui32', 32], ['int32', 32], ['uint32', 32],
  ['s64', 64], ['u64', 64], ['i64', 64], ['si64', 64], ['ui64', 64], ['int64', 64], ['uint64', 64], ['index', 64],
  ['f16', 16], ['bf16', 16], ['float16', 16], ['bfloat16', 16],
  ['f32', 32], ['tf32', 32], ['float32', 32],
  ['f64', 64], ['float64', 64],
  ['c64', 64], ['c128', 128], ['complex64', 64], ['complex128', 128],
  ['complex<f32>', 64], ['complex<f64>', 128],
  ['f4e2m1fn', 4], ['f4_e2m1fn', 4], ['f8e8m0fnu', 8], ['f8_e8m0fnu', 8],
  ['f6e2m3fn', 6], ['f6e3m2fn', 6], ['f6_e2m3fn', 6], ['f6_e3m2fn', 6],
]);

/** Float8 spellings: `f8e4m3fn`, `f8E5M2`, `f8_e4m3b11fnuz`, `float8_e4m3fn`. */
function float8Bits(lower: string): number | undefined {
  if (lower.startsWith('f8') || lower.startsWith('float8')) return 8;
  return undefined;
}

/**
 * Bits per element of a dtype in any dialect's spelling, or `undefined` when the name is not an
 * element type this table knows. Booleans (`pred`, `i1`, `bool`) take a whole byte, as XLA stores
 * them, so that one value has the same size in every layer; 2- and 4-bit integers and 4- and 6-bit
 * floats are packed (see `arrayBytes`).
 */
export function dtypeBits(dtype: string): number | undefined {
  const exact = BITS.get(dtype);
  if (exact !== undefined) return exact;
  const lower = dtype.toLowerCase();
  return BITS.get(lower) ?? float8Bits(lower);
}

/**
 * Bytes of one array: elements × bits, rounded up to whole bytes once per array (so `s4[3]` is
 * 2 bytes and `u2[5]` is 2 bytes; XLA packs sub-byte types the same way). A dynamic dimension
 * (`-1`) or an unknown dtype gives 0: the size is not knowable from the text.
 */
export function arrayBytes(dtype: string, dims: readonly number[]): number {
  const bits = dtypeBits(dtype);
  if (bits === undefined) return 0;
  let elements = 1;
  for (const d of dims) {
    if (d < 0) return 0;
    elements *= d;
  }
  return Math.ceil((elements * bits) / 8);
}

/** Bytes of a value: an array's bytes, or a tuple's leaves summed (tuples themselves hold no data here). */
export function valueBytes(type: ValueType): number {
  if ('tuple' in type) {
    let sum = 0;
    for (const t of type.tuple) sum += valueBytes(t);
    return sum;
  }
  return arrayBytes(type.dtype, type.dims);
}

/** The element a tuple index path selects (`[1, 0]` is `{1,0}`), or undefined when the path does not fit. */
export function typeAt(type: ValueType, path: readonly number[]): ValueType | undefined {
  let t: ValueType | undefined = type;
  for (const i of path) {
    if (!t || !('tuple' in t)) return undefined;
    t = t.tuple[i];
  }
  return t;
}
