import type { Diagnostic, ValueType } from '../types';
import type { HloMetadata } from './ast';
import { SpanTable } from './span-table';
import { SpanTrie } from './span-trie';

/** A shape as printed, parsed once per distinct text. */
export interface InternedShape {
  readonly type: ValueType;
  readonly bytes: number;
  readonly text: string;
}

/** Char codes the scanner branches on. */
export const Ch = {
  tab: 9, lf: 10, cr: 13, space: 32, quote: 34, hash: 35, percent: 37, lparen: 40, rparen: 41, star: 42,
  comma: 44, minus: 45, dot: 46, slash: 47, zero: 48, nine: 57, colon: 58, lt: 60, eq: 61, gt: 62,
  question: 63, lbracket: 91, backslash: 92, rbracket: 93, lbrace: 123, rbrace: 125,
} as const;

const NAME_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_CHAR[c] = /[A-Za-z0-9_.\-$]/.test(ch) ? 1 : 0;
}

/** True for characters of an HLO name or keyword: `custom-call.1`, `Arg_0.1`, `f32`. */
export function isNameChar(c: number): boolean {
  return c < 128 && NAME_CHAR[c] === 1;
}

/** An object in dictionary mode (made by `Object.create(null)`), holding one key at a time. */
const keyHolder: Record<string, 0> = Object.create(null) as Record<string, 0>;

/**
 * The engine's one shared copy of `s` (V8 internalizes property keys), so comparing it with a
 * literal such as `'parameter'` is a pointer comparison rather than a character one. V8 keeps such
 * strings in its old generation, so storing one in an object that is already old adds nothing for
 * the next scavenge to visit. The key goes into a dictionary-mode object and out again: an object
 * literal with the key (`{ [s]: 0 }`) would add a hidden-class transition per distinct name, which
 * made the 8,000 names of a large dump cost 2–3 µs each instead of under 1.
 */
export function internalized(s: string): string {
  keyHolder[s] = 0;
  const key = Object.keys(keyHolder)[0];
  delete keyHolder[s];
  return key ?? s;
}

/**
 * A cursor over HLO text that works on char codes, never on per-character strings or regexes.
 * Every method stops at the end of the text, so no read can run past it; problems become
 * diagnostics with offsets.
 */
export class Scanner {
  pos = 0;
  readonly end: number;
  readonly diagnostics: Diagnostic[] = [];
  /** Shapes read so far, by their text (see `internedShape`). */
  readonly shapes: SpanTable<InternedShape>;
  /** The same shapes, for finding a plain array type as it is read (see `knownArrayShape`). */
  readonly shapeTrie = new SpanTrie<InternedShape>();
  /** Metadata read so far, by its text (see `internedMetadata`). */
  readonly metadata: SpanTable<HloMetadata>;
  /** Words read by `word()`, by their text, and the same as a trie walked while one is read. */
  private readonly words: SpanTable<string>;
  private readonly wordTrie = new SpanTrie<string>();

  constructor(readonly text: string) {
    this.end = text.length;
    this.shapes = new SpanTable(text);
    this.metadata = new SpanTable(text);
    this.words = new SpanTable(text);
  }

  /** Char code at `pos + ahead`, or -1 past the end. */
  peek(ahead = 0): number {
    const i = this.pos + ahead;
    return i < this.end ? this.text.charCodeAt(i) : -1;
  }

  error(from: number, to: number, message: string): void {
    this.diagnostics.push({ severity: 'error', message, from, to: Math.min(Math.max(to, from), this.end) });
  }

  warning(from: number, to: number, message: string): void {
    this.diagnostics.push({ severity: 'warning', message, from, to: Math.min(Math.max(to, from), this.end) });
  }

  /** Skips whitespace, `// line` comments and `/* block *\/` comments (the XLA lexer's trivia). */
  skipTrivia(): void {
    const t = this.text;
    let p = this.pos;
    while (p < this.end) {
      const c = t.charCodeAt(p);
      if (c === Ch.space || c === Ch.lf || c === Ch.tab || c === Ch.cr) {
        p++;
      } else if (c === Ch.slash && t.charCodeAt(p + 1) === Ch.slash) {
        const nl = t.indexOf('\n', p);
        p = nl < 0 ? this.end : nl + 1;
      } else if (c === Ch.slash && t.charCodeAt(p + 1) === Ch.star) {
        const close = t.indexOf('*/', p + 2);
        if (close < 0) {
          this.error(p, p + 2, 'unterminated /* comment');
          p = this.end;
        } else {
          p = close + 2;
        }
      } else {
        break;
      }
    }
    this.pos = p;
  }

  /** Skips spaces and tabs only, staying on the current line. */
  skipSpaces(): void {
    const t = this.text;
    let p = this.pos;
    while (p < this.end) {
      const c = t.charCodeAt(p);
      if (c !== Ch.space && c !== Ch.tab) break;
      p++;
    }
    this.pos = p;
  }

  /** Reads a name (`%` prefix dropped) and returns it, or `''` when none starts here. */
  name(): string {
    if (this.peek() === Ch.percent) this.pos++;
    const start = this.pos;
    const t = this.text;
    let p = start;
    while (p < this.end && isNameChar(t.charCodeAt(p))) p++;
    this.pos = p;
    return start === p ? '' : t.slice(start, p);
  }

  /**
   * Consumes `word=` when it is next (an attribute key), without building a string; true when it was.
   * e.g. `keyword('metadata')` at `metadata={op_name="a"}` leaves the cursor at `{`.
   */
  keyword(word: string): boolean {
    const t = this.text;
    const at = this.pos;
    if (t.charCodeAt(at + word.length) !== Ch.eq) return false;
    // Compared here rather than with `startsWith`, whose call costs more than these few characters.
    for (let i = 0; i < word.length; i++) if (t.charCodeAt(at + i) !== word.charCodeAt(i)) return false;
    this.pos = at + word.length + 1;
    return true;
  }

  /** Moves past a name without building it; returns how many characters it had. */
  skipName(): number {
    const t = this.text;
    const start = this.pos;
    let p = start;
    while (p < this.end && isNameChar(t.charCodeAt(p))) p++;
    this.pos = p;
    return p - start;
  }

  /**
   * Reads a name that repeats across the text (an opcode such as `fusion` or `get-tuple-element`)
   * and returns one shared, internalized string per distinct spelling, so 10^5 instructions do not
   * keep 10^5 copies. Returns `''` when no name starts here.
   */
  word(): string {
    const t = this.text;
    const trie = this.wordTrie;
    const start = this.pos;
    let p = start;
    let node = SpanTrie.ROOT;
    for (let c = t.charCodeAt(p); isNameChar(c); c = t.charCodeAt(++p)) node = trie.next(node, c);
    this.pos = p;
    if (p === start) return '';
    const walked = trie.at(node);
    if (walked !== undefined) return walked;
    let w = this.words.get(start, p);
    if (w === undefined) {
      w = internalized(t.slice(start, p));
      this.words.setKey(w, w);
    }
    trie.set(t, start, p, w);
    return w;
  }

  /** Consumes `c` if it is next; true when it was. */
  eat(c: number): boolean {
    if (this.peek() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** True when the text at `pos` starts with `word` followed by a non-name character. */
  atWord(word: string): boolean {
    // The first character alone rules most places out, without calling `startsWith`.
    const t = this.text;
    return t.charCodeAt(this.pos) === word.charCodeAt(0) && t.startsWith(word, this.pos) && !isNameChar(t.charCodeAt(this.pos + word.length));
  }

  /** Reads an unsigned decimal integer, or returns -1 when no digit is next. */
  integer(): number {
    const t = this.text;
    let p = this.pos;
    let n = 0;
    const start = p;
    while (p < this.end) {
      const c = t.charCodeAt(p);
      if (c < Ch.zero || c > Ch.nine) break;
      n = n * 10 + (c - Ch.zero);
      p++;
    }
    this.pos = p;
    return p === start ? -1 : n;
  }

  /** Reads a `"…"` string starting at `pos` and returns its content with `\"` and `\\` escapes undone. */
  string(): string {
    const start = this.pos;
    const close = this.skipString();
    const raw = this.text.slice(start + 1, close);
    return raw.indexOf('\\') < 0 ? raw : raw.replace(/\\(.)/g, '$1');
  }

  /**
   * Moves past a `"…"` string starting at `pos`; returns the offset of its closing quote (or the
   * end of the text, with a diagnostic, when it is unterminated).
   */
  skipString(): number {
    const t = this.text;
    let p = this.pos + 1;
    while (p < this.end) {
      const c = t.charCodeAt(p);
      if (c === Ch.quote) {
        this.pos = p + 1;
        return p;
      }
      p += c === Ch.backslash ? 2 : 1;
    }
    this.error(this.pos, this.pos + 1, 'unterminated string');
    this.pos = this.end;
    return this.end;
  }

  /**
   * Moves past one attribute value: everything up to a `,` or whitespace at nesting depth 0, where
   * `{[(` nest and strings are opaque (`window={size=3x3 pad=1_1x1_1}`, `dim_labels=b01f_01io->b01f`,
   * `replica_groups=[2,4]<=[8]`). Stops before an unbalanced closer, leaving it to the caller.
   */
  skipValue(): void {
    const t = this.text;
    let depth = 0;
    while (this.pos < this.end) {
      const c = t.charCodeAt(this.pos);
      if (c === Ch.quote) {
        this.skipString();
        continue;
      }
      if (c === Ch.lbrace || c === Ch.lbracket || c === Ch.lparen) {
        depth++;
      } else if (c === Ch.rbrace || c === Ch.rbracket || c === Ch.rparen) {
        if (depth === 0) return;
        depth--;
      } else if (depth === 0 && (c === Ch.comma || c === Ch.space || c === Ch.lf || c === Ch.tab || c === Ch.cr)) {
        return;
      }
      this.pos++;
    }
  }

  /**
   * Moves past a balanced group that opens at `pos` (`(…)`, `{…}`, `[…]`); strings are opaque.
   * Returns whether it closed; when not, the cursor is at the end and, if `report` (the default),
   * a diagnostic says so.
   */
  skipGroup(report = true): boolean {
    const t = this.text;
    const start = this.pos;
    let depth = 0;
    while (this.pos < this.end) {
      const c = t.charCodeAt(this.pos);
      if (c === Ch.quote) {
        this.skipString();
        continue;
      }
      this.pos++;
      if (c === Ch.lbrace || c === Ch.lbracket || c === Ch.lparen) depth++;
      else if ((c === Ch.rbrace || c === Ch.rbracket || c === Ch.rparen) && --depth === 0) return true;
    }
    if (report) this.error(start, start + 1, 'unbalanced bracket: no closing bracket before the end of the text');
    return false;
  }

  /** Moves to the start of the next line (error recovery). */
  skipLine(): void {
    const nl = this.text.indexOf('\n', this.pos);
    this.pos = nl < 0 ? this.end : nl + 1;
  }
}
