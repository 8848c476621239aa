import type { Diagnostic } from '../types';
import { Tok, type MlirTokens } from './lexer';
import { matchClose } from './signature';

const { eof: EOF, ident: IDENT, punct: PUNCT } = Tok;

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
}
