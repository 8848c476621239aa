import type { Analysis, Diagnostic, ParseResult } from './types';

/**
 * The contract every dialect parser passes (see `*.contract.test.ts` beside each dialect):
 * it never throws, diagnostics carry in-range spans, empty input is handled, and valid samples
 * index to something non-empty. Used from tests only; pure so it can run anywhere.
 */
export interface ParserUnderContract {
  readonly name: string;
  readonly parse: (text: string) => ParseResult<unknown>;
  readonly index: (text: string) => Analysis;
  /** Small valid texts of this dialect. */
  readonly valid: readonly string[];
  /** Texts with a syntax error each; each must yield at least one error diagnostic. */
  readonly invalid: readonly string[];
}

/** Problems with one diagnostic list against its text, as messages; empty when all is well. */
export function checkDiagnostics(text: string, diagnostics: readonly Diagnostic[]): string[] {
  const problems: string[] = [];
  for (const d of diagnostics) {
    if (!(d.from >= 0 && d.to >= d.from && d.to <= text.length)) problems.push(`span ${d.from}..${d.to} outside 0..${text.length}: ${d.message}`);
    if (!d.message) problems.push(`empty message at ${d.from}`);
  }
  return problems;
}
