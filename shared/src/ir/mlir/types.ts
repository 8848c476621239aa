import type { ArrayType, ValueType } from '../types';

/**
 * Reads MLIR type text: `tensor<16x32xf32>`, `tensor<?x4xbf16>`, `tensor<f32>`,
 * `tensor<4xf32, #encoding>`, `tensor<2xcomplex<f32>>`, `tensor<2x!quant.uniform<i8:f32, 0.1>>`,
 * `memref<8x128xf32, #tpu.memory_space<vmem>>`, `tuple<…>`, scalars like `f32`, `i1`,
 * and `!stablehlo.token`. Unknown types come back as `undefined`; this never throws.
 */
export function parseMlirType(text: string, depth = 0): ValueType | undefined {
  const t = text.trim();
  if (t.startsWith('tuple<') && t.endsWith('>')) {
    if (depth > 32) return undefined;
    const parts = splitTop(t.slice(6, -1));
    const tuple: ValueType[] = [];
    for (const p of parts) {
      const v = parseMlirType(p, depth + 1);
      if (v) tuple.push(v);
    }
    return { tuple };
  }
  const m = /^(tensor|memref|vector)<(.*)>$/s.exec(t);
  if (!m) {
    if (t === '!stablehlo.token' || t === '!mhlo.token') return { dtype: 'token', dims: [] };
    return /^[a-zA-Z][\w<>]*$/.test(t) ? { dtype: t, dims: [] } : undefined;
  }
  const body = splitTop(m[2] ?? '')[0] ?? '';
  if (body.startsWith('*')) return { dtype: elementOf(body.replace(/^\*x/, '')), dims: [-1] };
  const dims: number[] = [];
  let i = 0;
  for (;;) {
    const dm = /^(\?|\d+)x/.exec(body.slice(i));
    if (!dm) break;
    dims.push(dm[1] === '?' ? -1 : Number(dm[1]));
    i += dm[0].length;
  }
  return { dtype: elementOf(body.slice(i)), dims };
}

/** Quantized element types are stored as their storage type: `!quant.uniform<i8:f32, …>` → `i8`. */
function elementOf(text: string): string {
  const q = /^!quant\.(?:uniform|any|calibrated)<([a-z]+\d+)/.exec(text);
  if (q?.[1]) return q[1];
  return text.trim();
}

/** Splits at commas outside `<…>`, `(…)`, `[…]` and `{…}`. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 60 || c === 40 || c === 91 || c === 123) depth++;
    else if ((c === 62 && text.charCodeAt(i - 1) !== 45) || c === 41 || c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 0) {
      out.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(text.slice(from).trim());
  return out;
}

/** True for an array type (not a tuple). */
export function isArrayType(t: ValueType | undefined): t is ArrayType {
  return t !== undefined && !('tuple' in t);
}
