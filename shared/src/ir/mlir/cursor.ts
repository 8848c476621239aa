import type { Diagnostic } from '../types';
import { Tok, type MlirTokens } from './lexer';
import { matchClose } from './signature';

const { eof: EOF, ident: IDENT, punct: PUNCT, percent: PERCENT, caret: CARET, hash: HASH, bang: BANG, string: STRING, number: NUMBER, arrow: ARROW } = Tok;
const C = { lparen: 40, lbrack: 91, lbrace: 123, rbrace: 125, lt: 60, comma: 44, colon: 58, eq: 61 } as const;

/** Ops without a dialect prefix that start a statement in pretty form. */
const BARE_OPS = new Set(['return', 'module', 'func', 'call']);


/** A position in one chunk's tokens, with the lookahead and reporting the parser builds on. */
export abstract class TokenCursor {
  protected p = 0;

  constructor(
    protected readonly text: string,
    protected readonly t: MlirTokens,
    protected readonly to: number,
    protected readonly diagnostics: Diagnostic[],
  ) {}

  /** Skips from an opening bracket past its matching close. */
  protected skipBalanced(): void {
    const close = matchClose(this.t, this.p);
    if (this.t.kind[close + 1] === EOF && !(this.t.kind[close] === PUNCT)) {
      this.error(this.start(), this.end(), 'unclosed bracket');
    }
    this.p = close + 1;
  }

  protected skipLine(from: number): void {
    this.p = Math.max(this.p, from + 1);
    while (this.kind() !== EOF && this.t.newline[this.p] !== 1) this.p++;
  }

  protected lineEnd(offset: number): number {
    const i = this.text.indexOf('\n', offset);
    return i < 0 ? this.text.length : i;
  }

  protected kind(ahead = 0): number {
    return this.t.kind[Math.min(this.p + ahead, this.t.count - 1)] ?? EOF;
  }

  protected isPunct(code: number, ahead = 0): boolean {
    const i = Math.min(this.p + ahead, this.t.count - 1);
    return this.t.kind[i] === PUNCT && this.t.code[i] === code;
  }

  protected isIdent(s: string): boolean {
    return this.kind() === IDENT && this.tokText() === s;
  }

  protected start(): number {
    return this.t.start[Math.min(this.p, this.t.count - 1)] ?? this.to;
  }

  protected end(): number {
    return this.t.end[Math.min(this.p, this.t.count - 1)] ?? this.to;
  }

  protected tokText(ahead = 0): string {
    const i = Math.min(this.p + ahead, this.t.count - 1);
    return this.text.slice(this.t.start[i], this.t.end[i]);
  }

  protected error(from: number, to: number, message: string): void {
    this.diagnostics.push({ severity: 'error', message, from, to: Math.max(from, to) });
  }

  /** Decides whether the `{` at the cursor opens a region (true) or an attribute dictionary. */
  protected looksLikeRegion(): boolean {
    const k = this.kind(1);
    if (k === PUNCT && this.t.code[this.p + 1] === C.rbrace) return false;
    if (k === CARET || k === PERCENT) return true;
    if (k === NUMBER) return false;
    if (k === IDENT || k === STRING || k === HASH) {
      if (this.isPunct(C.eq, 2)) return false;
      if ((this.isPunct(C.comma, 2) || this.isPunct(C.rbrace, 2)) && this.t.newline[this.p + 1] === 0) return false;
      return true;
    }
    return k !== PUNCT;
  }

  /** At a line start outside brackets: does this token begin a new operation? */
  protected startsStatement(): boolean {
    const prev = this.p - 1;
    if (prev >= 0) {
      const pk = this.t.kind[prev];
      const pc = this.t.code[prev];
      if (pk === ARROW || (pk === PUNCT && (pc === C.comma || pc === C.eq || pc === C.colon || pc === C.lparen || pc === C.lbrack || pc === C.lbrace || pc === C.lt))) return false;
    }
    const k = this.kind();
    if (k === PERCENT || k === CARET || k === STRING) return true;
    if (k === HASH || k === BANG) return this.isPunct(C.eq, 1);
    if (k === IDENT) {
      if (this.isPunct(C.eq, 1)) return false;
      const s = this.tokText();
      return s.includes('.') || BARE_OPS.has(s);
    }
    return false;
  }
}
