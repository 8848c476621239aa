/**
 * Lexer for MLIR text (StableHLO, CHLO, MHLO, VHLO, Shardy, func, builtin). One pass over char
 * codes into parallel typed arrays; never throws. Comments (`// …`) are trivia; a token records
 * whether a line break precedes it, which the parser uses to end pretty-form operations.
 */

/** Token kinds. Punctuation tokens have kind `Punct` and their char code in `code`. */
export const Tok = {
  eof: 0,
  /** `%0`, `%arg0`, `%0#1`, `%iterArg_2` */
  percent: 1,
  /** `@main`, `@"quoted name"` */
  at: 2,
  /** `^bb0` */
  caret: 3,
  /** `#loc12`, `#stablehlo.dot` */
  hash: 4,
  /** `!stablehlo.token` */
  bang: 5,
  /** bare identifier, `stablehlo.add`, `x32xf32` */
  ident: 6,
  number: 7,
  string: 8,
  /** `->` */
  arrow: 9,
  punct: 10,
  /** a character no MLIR token starts with */
  bad: 11,
} as const;
export type Tok = (typeof Tok)[keyof typeof Tok];

/** The tokens of one text, as parallel arrays indexed by token number; the last token is `eof`. */
export interface MlirTokens {
  readonly text: string;
  readonly count: number;
  readonly kind: Uint8Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** 1 when a line break (or the start of text) precedes the token. */
  readonly newline: Uint8Array;
  /** For punctuation: the char code; 0 otherwise. */
  readonly code: Uint16Array;
  /** Offsets of unterminated strings, for diagnostics. */
  readonly unterminated: readonly number[];
}

/** Char codes that are MLIR punctuation tokens. */
const PUNCT_CHARS = charSet('()[]{}<>,:=?*+-/|.;');

function charSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
}

const isIdStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
/** Suffix identifier chars: letters, digits, `_ $ . -`. */
const isSuffixChar = (c: number): boolean => isIdStart(c) || isDigit(c) || c === 36 || c === 46 || c === 45;
const isBareChar = (c: number): boolean => isIdStart(c) || isDigit(c) || c === 36 || c === 46;

/** Growable parallel arrays the lexer appends to; a class so the hot loop keeps its locals in registers. */
class TokenWriter {
  kind: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  newline: Uint8Array;
  code: Uint16Array;
  n = 0;
  /** Whether a line break came since the last token. */
  sawNewline = 1;

  constructor(cap: number) {
    this.kind = new Uint8Array(cap);
    this.start = new Int32Array(cap);
    this.end = new Int32Array(cap);
    this.newline = new Uint8Array(cap);
    this.code = new Uint16Array(cap);
  }

  push(k: Tok, s: number, e: number, c: number): void {
    const n = this.n;
    if (n === this.kind.length) this.grow();
    this.kind[n] = k;
    this.start[n] = s;
    this.end[n] = e;
    this.newline[n] = this.sawNewline;
    this.code[n] = c;
    this.n = n + 1;
    this.sawNewline = 0;
  }

  private grow(): void {
    const size = this.kind.length * 2;
    const k = new Uint8Array(size); k.set(this.kind); this.kind = k;
    const s = new Int32Array(size); s.set(this.start); this.start = s;
    const e = new Int32Array(size); e.set(this.end); this.end = e;
    const n = new Uint8Array(size); n.set(this.newline); this.newline = n;
    const c = new Uint16Array(size); c.set(this.code); this.code = c;
  }
}

/** Splits `text[from, to)` into tokens. */
export function lexMlir(text: string, from = 0, to = text.length): MlirTokens {
  const w = new TokenWriter(Math.max(16, ((to - from) >> 2) + 16));
  const unterminated: number[] = [];
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 10) { w.sawNewline = 1; i++; continue; }
    if (c === 32 || c === 9 || c === 13 || c === 12) { i++; continue; }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < to && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    const s = i;
    if (c === 34) {
      i++;
      let closed = false;
      while (i < to) {
        const d = text.charCodeAt(i);
        if (d === 92) { i += 2; continue; }
        if (d === 34) { i++; closed = true; break; }
        if (d === 10) break;
        i++;
      }
      if (i > to) i = to;
      if (!closed) unterminated.push(s);
      w.push(Tok.string, s, i, 0);
      continue;
    }
    if (c === 37 || c === 94 || c === 35 || c === 33) {
      i++;
      while (i < to && isSuffixChar(text.charCodeAt(i))) i++;
      // `%0#1` names result 1 of a multi-result op
      if (c === 37 && text.charCodeAt(i) === 35 && isDigit(text.charCodeAt(i + 1))) {
        i++;
        while (i < to && isDigit(text.charCodeAt(i))) i++;
      }
      const k = c === 37 ? Tok.percent : c === 94 ? Tok.caret : c === 35 ? Tok.hash : Tok.bang;
      if (i === s + 1) w.push(Tok.punct, s, i, c);
      else w.push(k, s, i, 0);
      continue;
    }
    if (c === 64) {
      i++;
      if (text.charCodeAt(i) === 34) {
        i++;
        while (i < to && text.charCodeAt(i) !== 34 && text.charCodeAt(i) !== 10) i += text.charCodeAt(i) === 92 ? 2 : 1;
        if (i < to && text.charCodeAt(i) === 34) i++;
      } else {
        while (i < to && isSuffixChar(text.charCodeAt(i))) i++;
      }
      w.push(Tok.at, s, Math.min(i, to), 0);
      continue;
    }
    if (isIdStart(c)) {
      i++;
      while (i < to && isBareChar(text.charCodeAt(i))) i++;
      w.push(Tok.ident, s, i, 0);
      continue;
    }
    if (isDigit(c) || ((c === 45 || c === 43) && isDigit(text.charCodeAt(i + 1)))) {
      i++;
      if (c === 48 && text.charCodeAt(i) === 120) {
        i++;
        while (i < to && isHexDigit(text.charCodeAt(i))) i++;
      } else {
        while (i < to && isDigit(text.charCodeAt(i))) i++;
        if (text.charCodeAt(i) === 46) { i++; while (i < to && isDigit(text.charCodeAt(i))) i++; }
        const e = text.charCodeAt(i);
        if ((e === 101 || e === 69) && (isDigit(text.charCodeAt(i + 1)) || ((text.charCodeAt(i + 1) === 45 || text.charCodeAt(i + 1) === 43) && isDigit(text.charCodeAt(i + 2))))) {
          i += 2;
          while (i < to && isDigit(text.charCodeAt(i))) i++;
        }
      }
      w.push(Tok.number, s, i, 0);
      continue;
    }
    if (c === 45 && text.charCodeAt(i + 1) === 62) { i += 2; w.push(Tok.arrow, s, i, 0); continue; }
    if (c < 128 && PUNCT_CHARS[c] === 1) { i++; w.push(Tok.punct, s, i, c); continue; }
    i++;
    w.push(Tok.bad, s, i, c);
  }
  w.push(Tok.eof, to, to, 0);
  return { text, count: w.n, kind: w.kind, start: w.start, end: w.end, newline: w.newline, code: w.code, unterminated };
}
