import { arrayBytes } from '@seam/shared/ir';

/** A shape found in a line of text, with its element type, dimensions and bytes. */
export interface ShapeAt {
  readonly text: string;
  readonly from: number;
  readonly to: number;
  readonly dtype: string;
  readonly dims: readonly number[];
  readonly bytes: number;
}

// HLO `bf16[8192,8192]{1,0}`, jaxpr `f32[16,32]`, MLIR `tensor<16x32xf32>`, `tensor<f32>`.
const BRACKET = /\b([a-z][a-z0-9_]*)\[([\d,\s]*)\](\{[^}\s]*\})?/g;
const TENSOR = /\btensor<((?:\?|\d+)(?:x(?:\?|\d+))*x)?([a-zA-Z][\w<>]*)>/g;

/** The shape under `col` of `line` (0-based), if any; `lineFrom` offsets the returned range. */
export function shapeAt(line: string, lineFrom: number, col: number): ShapeAt | null {
  for (const m of line.matchAll(BRACKET)) {
    const start = m.index ?? 0;
    if (col < start || col > start + m[0].length) continue;
    const dims = (m[2] ?? '').split(',').map((d) => d.trim()).filter(Boolean).map(Number);
    const bytes = arrayBytes(m[1] ?? '', dims);
    if (bytes === 0 && dims.every((d) => d > 0)) continue;
    return { text: m[0], from: lineFrom + start, to: lineFrom + start + m[0].length, dtype: m[1] ?? '', dims, bytes };
  }
  for (const m of line.matchAll(TENSOR)) {
    const start = m.index ?? 0;
    if (col < start || col > start + m[0].length) continue;
    const dims = (m[1] ?? '').split('x').filter(Boolean).map((d) => (d === '?' ? -1 : Number(d)));
    return { text: m[0], from: lineFrom + start, to: lineFrom + start + m[0].length, dtype: m[2] ?? '', dims, bytes: arrayBytes(m[2] ?? '', dims) };
  }
  return null;
}
