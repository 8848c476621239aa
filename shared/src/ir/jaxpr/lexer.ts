/**
 * Lexer for jaxpr text as `jax.make_jaxpr(f)(…)` prints it, in every printer format since 2021.
 * One pass over char codes; never throws. `# …` comments (source info and name stacks printed by
 * `pretty_print(source_info=True, name_stack=True)`) are kept apart from the tokens. HTML anchors
 * of `pretty_print(use_color=…, html=True)` (`<a id="v_a">`, `</a>`) are skipped as trivia.
 */

export const JTok = {
  eof: 0,
  /** variables, primitives, keywords: `a`, `bf`, `e_`, `_`, `dot_general`, `lambda`, `-inf` */
  ident: 1,
  /** `1.0`, `2.`, `-3`, `1e-05` */
  number: 2,
  /** `'text'` or `"text"` */
  string: 3,
  /** `<-` */
  larrow: 4,
  punct: 5,
} as const;
export type JTok = (typeof JTok)[keyof typeof JTok];

export interface JaxprToken {
  readonly kind: JTok;
  readonly from: number;
  readonly to: number;
  /** A line break (or start of text) precedes it. */
  readonly newline: boolean;
  /** Whitespace precedes it (needed to tell `f32[3]{weak}` from `{ lambda`). */
  readonly space: boolean;
}

export interface JaxprComment {
  readonly from: number;
  readonly to: number;
  /** Text after `#`, trimmed. */
  readonly text: string;
}

export interface JaxprTokens {
  readonly tokens: readonly JaxprToken[];
  readonly comments: readonly JaxprComment[];
}

const isIdStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isIdChar = (c: number): boolean => isIdStart(c) || isDigit(c) || c === 39;

/** Splits a jaxpr text into tokens and comments. */
export function lexJaxpr(text: string): JaxprTokens {
  const tokens: JaxprToken[] = [];
  const comments: JaxprComment[] = [];
  let newline = true;
  let space = true;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) { newline = true; space = true; i++; continue; }
    if (c === 32 || c === 9 || c === 13) { space = true; i++; continue; }
    if (c === 35) {
      const s = i;
      while (i < n && text.charCodeAt(i) !== 10) i++;
      comments.push({ from: s, to: i, text: text.slice(s + 1, i).trim() });
      space = true;
      continue;
    }
    if (c === 60 && (text.startsWith('<a ', i) || text.startsWith('</a>', i) || text.startsWith('<span', i) || text.startsWith('</span>', i))) {
      const close = text.indexOf('>', i);
      if (close > 0 && close - i < 200 && !text.slice(i, close).includes('\n')) { i = close + 1; continue; }
    }
    const s = i;
    let kind: JTok;
    if (c === 34 || c === 39) {
      i++;
      while (i < n && text.charCodeAt(i) !== c && text.charCodeAt(i) !== 10) i += text.charCodeAt(i) === 92 ? 2 : 1;
      if (i < n && text.charCodeAt(i) === c) i++;
      kind = JTok.string;
    } else if (isIdStart(c) || (c === 45 && text.startsWith('inf', i + 1))) {
      i += c === 45 ? 4 : 1;
      while (i < n && isIdChar(text.charCodeAt(i))) i++;
      kind = JTok.ident;
    } else if (isDigit(c) || ((c === 45 || c === 43) && (isDigit(text.charCodeAt(i + 1)) || (text.charCodeAt(i + 1) === 46 && isDigit(text.charCodeAt(i + 2)))))) {
      i++;
      while (i < n && (isDigit(text.charCodeAt(i)) || text.charCodeAt(i) === 46)) i++;
      const e = text.charCodeAt(i);
      if ((e === 101 || e === 69) && (isDigit(text.charCodeAt(i + 1)) || ((text.charCodeAt(i + 1) === 45 || text.charCodeAt(i + 1) === 43) && isDigit(text.charCodeAt(i + 2))))) {
        i += 2;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      // `0x7f3a…` addresses inside `<function f at 0x…>`
      while (i < n && isIdChar(text.charCodeAt(i))) i++;
      kind = JTok.number;
    } else if (c === 60 && text.charCodeAt(i + 1) === 45) {
      i += 2;
      kind = JTok.larrow;
    } else {
      i++;
      kind = JTok.punct;
    }
    tokens.push({ kind, from: s, to: Math.min(i, n), newline, space });
    newline = false;
    space = false;
  }
  tokens.push({ kind: JTok.eof, from: n, to: n, newline: true, space: true });
  return { tokens, comments };
}
