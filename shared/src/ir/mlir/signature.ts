import { Tok, type MlirTokens } from './lexer';

/**
 * Type signatures of MLIR operations, read from the token arrays: the trailing `: (…) -> …` or
 * `: T, T`, a function's `-> (…)`, and bracket matching shared with the parser.
 */

const { punct: PUNCT, ident: IDENT, bang: BANG, hash: HASH, arrow: ARROW, eof: EOF } = Tok;
const NONE: readonly string[] = Object.freeze([]);

/**
 * One copy of each distinct piece of text: a dump names a few hundred types and op names many
 * thousand times, and the AST and the index then share them.
 */
export class Strings {
  private readonly seen = new Map<string, string>();

  /** `text.slice(from, to)`, as the one shared copy. */
  slice(text: string, from: number, to: number): string {
    const s = text.slice(from, to);
    const known = this.seen.get(s);
    if (known !== undefined) return known;
    this.seen.set(s, s);
    return s;
  }
}
const LPAREN = 40, RPAREN = 41, LBRACK = 91, RBRACK = 93, LBRACE = 123, RBRACE = 125, LT = 60, GT = 62, COMMA = 44;

/** Operand and result types from the trailing `: (…) -> …` or `: T`, or a function's `-> …`. */
export function signature(t: MlirTokens, text: string, strings: Strings, name: string, colon: number, arrow: number): { operands: readonly string[]; results: readonly string[] } {
  const isFunc = name === 'func.func' || name === 'func';
  if (isFunc) return { operands: NONE, results: arrow >= 0 && (colon < 0 || arrow > colon) ? typeList(t, text, strings, arrow + 1).types : NONE };
  if (colon < 0) return { operands: NONE, results: NONE };
  const list = typeList(t, text, strings, colon + 1);
  if (list.arrowAt < 0) return { operands: NONE, results: list.types };
  const after = typeList(t, text, strings, list.arrowAt + 1);
  return { operands: list.types, results: after.types };
}

/**
 * type-list := type (`,` type)* with `(…)` groups flattened; stops at the first token that
 * cannot continue it (`{`, `loc`, a keyword like `cond`). `arrowAt` is a following `->`.
 */
export function typeList(t: MlirTokens, text: string, strings: Strings, at: number): { types: readonly string[]; arrowAt: number } {
  const types: string[] = [];
  let i = at;
  for (;;) {
    const k = t.kind[i];
    if (k === PUNCT && t.code[i] === LPAREN) {
      const close = matchClose(t, i);
      splitGroup(t, text, strings, i + 1, close, types);
      i = close + 1;
    } else if (k === IDENT || k === BANG || k === HASH) {
      if (t.kind[i] === IDENT && text.slice(t.start[i], t.end[i]) === 'loc') break;
      const s = t.start[i] ?? 0;
      let e = t.end[i] ?? s;
      i++;
      if (t.kind[i] === PUNCT && t.code[i] === LT && t.start[i] === e) {
        const close = matchClose(t, i);
        e = t.end[close] ?? e;
        i = close + 1;
      }
      types.push(strings.slice(text, s, e));
    } else break;
    if (t.kind[i] === PUNCT && t.code[i] === COMMA) { i++; continue; }
    return { types: types.slice(), arrowAt: t.kind[i] === ARROW ? i : -1 };
  }
  return { types: types.length ? types.slice() : NONE, arrowAt: -1 };
}

/** Splits tokens `[from, to)` at depth-0 commas, dropping `{…}` attribute dicts and `loc(…)`. */
export function splitGroup(t: MlirTokens, text: string, strings: Strings, from: number, to: number, out: string[]): void {
  let depth = 0;
  let s = -1;
  let e = -1;
  let stop = false;
  const flush = (): void => {
    if (s >= 0) out.push(strings.slice(text, s, e));
    s = -1; e = -1; stop = false;
  };
  for (let i = from; i < to; i++) {
    const k = t.kind[i];
    const c = k === PUNCT ? (t.code[i] ?? 0) : 0;
    if (depth === 0 && c === COMMA) { flush(); continue; }
    if (depth === 0 && (c === LBRACE || (k === IDENT && text.slice(t.start[i], t.end[i]) === 'loc'))) stop = true;
    if (c === LPAREN || c === LBRACK || c === LT || c === LBRACE) depth++;
    else if ((c === RPAREN || c === RBRACK || c === GT || c === RBRACE) && depth > 0) depth--;
    if (stop) continue;
    if (s < 0) s = t.start[i] ?? 0;
    e = t.end[i] ?? 0;
  }
  flush();
}

/** Index of the token closing the bracket at `i` (or the last token before eof). */
export function matchClose(t: MlirTokens, i: number): number {
  let depth = 0;
  for (let j = i; j < t.count; j++) {
    if (t.kind[j] === EOF) return j - 1;
    if (t.kind[j] !== PUNCT) continue;
    const c = t.code[j];
    if (c === LPAREN || c === LBRACK || c === LT || c === LBRACE) depth++;
    else if (c === RPAREN || c === RBRACK || c === GT || c === RBRACE) {
      depth--;
      if (depth <= 0) return j;
    }
  }
  return t.count - 1;
}
