import type { SourceRef, Span } from '../types';
import type { MlirChunk } from './ast';
import { Tok, type MlirTokens } from './lexer';

const { hash: HASH, string: STRING, number: NUMBER, ident: IDENT, punct: PUNCT, eof: EOF } = Tok;

/**
 * Resolves `loc(…)` expressions as `as_text(debug_info=True)` prints them, through `#locN`
 * aliases: file locations `"f.py":12:3` (also `to :28` ranges), name locations
 * `"jit(f)/dot_general"(#loc3)`, `callsite(callee at caller)`, `fused[…]` and `unknown`.
 * The outermost name becomes `opName` (JAX puts the name stack there); the first file location
 * found, callee before caller, gives file, line and column.
 */
export class LocResolver {
  private readonly memo = new Map<string, SourceRef>();
  private readonly resolving = new Set<string>();

  private readonly aliases: ReadonlyMap<string, Span>;
  private readonly t: MlirTokens;

  /** Resolves locations of `chunk`, whose tokens were read from `text`. */
  constructor(
    private readonly text: string,
    chunk: Pick<MlirChunk, 'locAliases' | 'tokens'>,
  ) {
    this.aliases = chunk.locAliases;
    this.t = chunk.tokens;
  }

  /** Source of the `loc(…)` at `span`; empty when it says nothing. */
  resolve(span: Span | undefined): SourceRef {
    if (!span) return {};
    const text = this.text.slice(span.from, span.to);
    // `loc(#loc12)`: the common case in debug dumps, answered from the alias memo
    if (text.startsWith('loc(#') && text.indexOf(')') === text.length - 1) {
      const name = text.slice(4, -1);
      const ref: Mutable = {};
      this.alias(name, ref);
      // ops sharing an alias share one (read-only) source object
      return this.memo.get(name) ?? ref;
    }
    const ref: Mutable = {};
    const i = this.tokenAt(span.from);
    // tokens at i: `loc` `(` expr `)`
    if (i >= 0) this.expr(this.t, i + 2, ref);
    return ref;
  }

  /** Index of the token starting at `offset`, or -1. */
  private tokenAt(offset: number): number {
    let lo = 0;
    let hi = this.t.count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.t.start[mid] ?? 0) < offset) lo = mid + 1;
      else hi = mid;
    }
    return this.t.start[lo] === offset ? lo : -1;
  }

  private alias(name: string, into: Mutable): void {
    let got = this.memo.get(name);
    if (!got) {
      const span = this.aliases.get(name);
      // a cycle, or a chain deeper than any printer writes: stop rather than exhaust the stack
      if (!span || this.resolving.has(name) || this.resolving.size >= 64) return;
      this.resolving.add(name);
      got = this.resolve(span);
      this.resolving.delete(name);
      this.memo.set(name, got);
    }
    if (into.opName === undefined && got.opName !== undefined) into.opName = got.opName;
    if (into.file === undefined && got.file !== undefined) {
      into.file = got.file;
      into.line = got.line;
      if (got.column !== undefined) into.column = got.column;
    }
  }

  /** Reads one location expression at token `i`, filling `ref`; returns the index after it. */
  private expr(t: MlirTokens, i: number, ref: Mutable, depth = 0): number {
    if (depth > 64) return t.count;
    const k = t.kind[i];
    const s = this.text.slice(t.start[i], t.end[i]);
    if (k === HASH) {
      this.alias(s, ref);
      return i + 1;
    }
    if (k === STRING) {
      const str = unquote(s);
      if (punct(t, i + 1) === 58 && t.kind[i + 2] === NUMBER) {
        if (ref.file === undefined) {
          ref.file = str;
          ref.line = Number(this.text.slice(t.start[i + 2], t.end[i + 2]));
          if (punct(t, i + 3) === 58 && t.kind[i + 4] === NUMBER) ref.column = Number(this.text.slice(t.start[i + 4], t.end[i + 4]));
        }
        let j = i + 3;
        while (j < t.count && t.kind[j] !== EOF && punct(t, j) !== 41 && punct(t, j) !== 44 && punct(t, j) !== 93 && !isWord(this.text, t, j, 'at')) j++;
        return j;
      }
      if (ref.opName === undefined) ref.opName = str;
      if (punct(t, i + 1) === 40) {
        const j = this.expr(t, i + 2, ref, depth + 1);
        return punct(t, j) === 41 ? j + 1 : j;
      }
      return i + 1;
    }
    if (isWord(this.text, t, i, 'callsite') && punct(t, i + 1) === 40) {
      let j = this.expr(t, i + 2, ref, depth + 1);
      if (isWord(this.text, t, j, 'at')) j = this.expr(t, j + 1, ref, depth + 1);
      return punct(t, j) === 41 ? j + 1 : j;
    }
    if (isWord(this.text, t, i, 'fused')) {
      let j = i + 1;
      if (punct(t, j) === 60) while (j < t.count && t.kind[j] !== EOF && punct(t, j) !== 62) j++;
      if (punct(t, j) === 62) j++;
      if (punct(t, j) !== 91) return j;
      j++;
      while (j < t.count && t.kind[j] !== EOF && punct(t, j) !== 93) {
        const next = this.expr(t, j, ref, depth + 1);
        j = next > j ? next : j + 1;
        if (punct(t, j) === 44) j++;
      }
      return j + 1;
    }
    return i + 1;
  }
}

interface Mutable {
  opName?: string;
  file?: string;
  line?: number;
  column?: number;
}

function punct(t: MlirTokens, i: number): number {
  return t.kind[i] === PUNCT ? (t.code[i] ?? 0) : -1;
}

function isWord(text: string, t: MlirTokens, i: number, w: string): boolean {
  return t.kind[i] === IDENT && text.slice(t.start[i], t.end[i]) === w;
}

/** `"a\22b"` → `a"b`: MLIR strings escape with two hex digits. */
function unquote(s: string): string {
  const body = s.slice(1, s.endsWith('"') && s.length > 1 ? -1 : undefined);
  if (!body.includes('\\')) return body;
  return body.replace(/\\([0-9a-fA-F]{2}|\\|")/g, (_, h: string) => (h.length === 2 ? String.fromCharCode(parseInt(h, 16)) : h));
}
