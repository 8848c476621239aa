import { arrayBytes, dtypeBits } from '../shape';
import type { ArrayType, ValueType } from '../types';
import { Ch, type Scanner } from './scanner';

/** A parsed shape and its size; bytes of a tuple are the sum of its leaves. */
export interface ParsedShape {
  readonly type: ValueType;
  readonly bytes: number;
}

const EMPTY: ParsedShape = { type: { tuple: [] }, bytes: 0 };

/**
 * shape := array | tuple | `b(` shape `)`
 * array := dtype `[` dims `]` layout?        e.g. `bf16[8192,128]{1,0:T(8,128)(2,1)S(1)}`
 * dims  := (`<=`? int | `?`) (`,` …)*          a bounded dynamic dim `<=8` counts as its bound
 * tuple := `(` (shape (`,` shape)*)? `)`       e.g. `(f32[2]{0}, /*index=1*\/s32[])`
 *
 * Returns undefined, with a diagnostic, when no shape starts at the cursor.
 */
export function parseShape(s: Scanner): ParsedShape | undefined {
  s.skipTrivia();
  if (s.peek() === Ch.lparen) return parseTuple(s);
  const start = s.pos;
  const dtype = s.name();
  if (dtype === 'b' && s.peek() === Ch.lparen) {
    s.pos++;
    const inner = parseShape(s);
    s.skipTrivia();
    if (!s.eat(Ch.rparen)) s.error(s.pos, s.pos + 1, "expected ')' after a buffer shape");
    return inner;
  }
  if (dtype === '' || s.peek() !== Ch.lbracket || dtypeBits(dtype) === undefined) {
    s.pos = start;
    s.error(start, start + Math.max(1, dtype.length), dtype ? `expected a shape, found '${dtype}'` : 'expected a shape');
    return undefined;
  }
  s.pos++;
  const dims = parseDims(s);
  const array: ArrayType = startsLayout(s) ? withLayout(s, dtype, dims) : { dtype, dims };
  return { type: array, bytes: arrayBytes(dtype, dims) };
}

/**
 * True when a layout follows on this line: `{1,0}`, `{}`, `{:T(8,128)}`, also after a space
 * (`bf16[1,128] {1,0}`). Not when the `{` opens a computation body: `-> f32[8]{` + newline + `%p = …`.
 */
function startsLayout(s: Scanner): boolean {
  const t = s.text;
  let p = s.pos;
  while (t.charCodeAt(p) === Ch.space) p++;
  if (t.charCodeAt(p) !== Ch.lbrace) return false;
  p++;
  while (t.charCodeAt(p) === Ch.space) p++;
  const c = t.charCodeAt(p);
  if ((c >= Ch.zero && c <= Ch.nine) || c === Ch.colon || c === Ch.rbrace) {
    s.skipSpaces();
    return true;
  }
  return false;
}

function parseTuple(s: Scanner): ParsedShape {
  const start = s.pos;
  s.pos++;
  const parts: ValueType[] = [];
  let bytes = 0;
  s.skipTrivia();
  if (s.eat(Ch.rparen)) return EMPTY;
  while (s.pos < s.end) {
    const part = parseShape(s);
    if (!part) break;
    parts.push(part.type);
    bytes += part.bytes;
    s.skipTrivia();
    if (s.eat(Ch.comma)) continue;
    if (s.eat(Ch.rparen)) return { type: { tuple: parts }, bytes };
    break;
  }
  s.error(start, s.pos, "expected ',' or ')' in a tuple shape");
  return { type: { tuple: parts }, bytes };
}

function parseDims(s: Scanner): number[] {
  const dims: number[] = [];
  for (;;) {
    s.skipSpaces();
    const c = s.peek();
    if (c === Ch.rbracket) {
      s.pos++;
      return dims;
    }
    if (c === Ch.lt && s.peek(1) === Ch.eq) s.pos += 2;
    if (s.peek() === Ch.question) {
      s.pos++;
      dims.push(-1);
    } else {
      const n = s.integer();
      if (n < 0) {
        s.error(s.pos, s.pos + 1, "expected a dimension size or ']'");
        return dims;
      }
      dims.push(n);
    }
    s.skipSpaces();
    if (!s.eat(Ch.comma) && s.peek() !== Ch.rbracket) {
      s.error(s.pos, s.pos + 1, "expected ',' or ']' in dimensions");
      return dims;
    }
  }
}

/** Layout `{1,0:T(8,128)(2,1)S(1)}`: skipped as a group; `S(n)` is its memory space. */
function withLayout(s: Scanner, dtype: string, dims: number[]): ArrayType {
  const from = s.pos;
  s.skipGroup();
  const t = s.text;
  for (let p = from; p < s.pos - 1; p++) {
    if (t.charCodeAt(p) !== 83 || t.charCodeAt(p + 1) !== Ch.lparen) continue;
    let n = 0;
    for (let q = p + 2; q < s.pos; q++) {
      const c = t.charCodeAt(q);
      if (c < Ch.zero || c > Ch.nine) break;
      n = n * 10 + (c - Ch.zero);
    }
    return { dtype, dims, memorySpace: n };
  }
  return { dtype, dims };
}

/**
 * Moves past a shape without building it (operand types repeat what their instructions say):
 * `f32[2,3]{1,0}`, `(f32[], s32[])`, `b(f32[])`.
 */
export function skipShape(s: Scanner): void {
  if (s.peek() === Ch.lparen) {
    s.skipGroup();
    return;
  }
  s.skipName();
  const c = s.peek();
  if (c === Ch.lparen || c === Ch.lbracket) s.skipGroup();
  if (startsLayout(s)) s.skipGroup();
}
