import type { Diagnostic, ParseResult, Span } from '../types';
import type { MlirArgument, MlirAttribute, MlirBlock, MlirChunk, MlirFile, MlirName, MlirOperation, MlirRegion } from './ast';
import { LineIndex } from './lines';
import { lexMlir, Tok } from './lexer';
import { TokenCursor } from './cursor';
import { matchClose, signature, splitGroup, Strings } from './signature';

const { eof: EOF, percent: PERCENT, at: AT, caret: CARET, hash: HASH, bang: BANG, ident: IDENT, number: NUMBER, string: STRING, arrow: ARROW, punct: PUNCT, bad: BAD } = Tok;
const C = { lparen: 40, rparen: 41, lbrack: 91, rbrack: 93, lbrace: 123, rbrace: 125, lt: 60, gt: 62, comma: 44, colon: 58, eq: 61 } as const;

const NONE: readonly never[] = Object.freeze([]);

/**
 * A list as it will be kept: the shared empty list, or an exact-size copy (an array grown by
 * `push` reserves 17 slots, which over ~100k ops of a large dump is most of the AST's memory).
 */
function keep<T>(list: T[]): readonly T[] {
  return list.length === 0 ? NONE : list.slice();
}

/** Deepest region nesting read; deeper regions are skipped with an error. */
const MAX_NESTING = 256;

/**
 * Parses MLIR text in pretty or generic form, split into `// -----` chunks. Never throws:
 * what cannot be read is skipped with an error diagnostic carrying its offsets.
 */
export function parseMlir(text: string, lines: LineIndex = new LineIndex(text)): ParseResult<MlirFile> {
  const diagnostics: Diagnostic[] = [];
  const chunks: MlirChunk[] = [];
  const strings = new Strings();
  for (const [from, to] of splitChunks(text)) chunks.push(new ChunkParser(text, from, to, lines, diagnostics, strings).parseChunk());
  return { ast: { from: 0, to: text.length, chunks }, diagnostics };
}

/** `[from, to)` ranges of the `// -----` separated chunks. */
export function splitChunks(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const re = /^[ \t]*\/\/ -----.*$/gm;
  let from = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push([from, m.index]);
    from = m.index + m[0].length;
  }
  out.push([from, text.length]);
  return out;
}

/** Recursive-descent parser over the tokens of one chunk. */
class ChunkParser extends TokenCursor {
  private readonly aliases = new Map<string, Span>();
  private readonly strings: Strings;
  private depth = 0;

  constructor(
    text: string,
    private readonly from: number,
    to: number,
    private readonly lines: LineIndex,
    diagnostics: Diagnostic[],
    strings: Strings,
  ) {
    super(text, lexMlir(text, from, to), to, diagnostics);
    this.strings = strings;
    for (const s of this.t.unterminated) this.error(s, Math.min(this.lineEnd(s), to), 'unterminated string');
  }

  /** chunk := (alias-def | operation)* */
  parseChunk(): MlirChunk {
    const ops: MlirOperation[] = [];
    while (this.kind() !== EOF) {
      if ((this.kind() === HASH || this.kind() === BANG) && this.isPunct(C.eq, 1)) {
        this.parseAliasDef();
        continue;
      }
      if (this.isPunct(C.rbrace)) {
        this.error(this.start(), this.end(), "unexpected '}'");
        this.p++;
        continue;
      }
      this.pushOp(ops);
    }
    return { from: this.from, to: this.to, ops, locAliases: this.aliases, tokens: this.t };
  }

  /** alias-def := `#name` `=` attribute | `!name` `=` type */
  private parseAliasDef(): void {
    const name = this.tokText();
    const isLoc = this.kind() === HASH;
    this.p += 2;
    const s = this.start();
    if (isLoc && this.isIdent('loc') && this.isPunct(C.lparen, 1)) {
      this.p++;
      this.skipBalanced();
      this.aliases.set(name, { from: s, to: this.t.end[this.p - 1] ?? s });
      return;
    }
    this.skipValue(false);
  }

  /** Parses one operation into `ops`, or reports and skips one token when none starts here. */
  private pushOp(ops: MlirOperation[]): void {
    const before = this.p;
    const op = this.parseOperation();
    if (op) ops.push(op);
    if (this.p === before) {
      this.error(this.start(), this.end(), `expected an operation, found '${this.tokText()}'`);
      this.p++;
    }
  }

  /** operation := (result-list `=`)? (op-name | string) op-body */
  private parseOperation(): MlirOperation | undefined {
    const s = this.start();
    const first = this.p;
    const results: MlirName[] = [];
    while (this.kind() === PERCENT) {
      const r = { name: this.strings.slice(this.text, this.start(), this.end()), from: this.start(), to: this.end() };
      this.p++;
      if (this.isPunct(C.colon) && this.kind(1) === NUMBER) {
        const n = Math.min(Number(this.tokText(1)), 4096);
        for (let i = 0; i < n; i++) results.push({ ...r, name: `${r.name}#${i}` });
        this.p += 2;
      } else results.push(r);
      if (!this.isPunct(C.comma)) break;
      this.p++;
    }
    if (results.length > 0) {
      if (!this.isPunct(C.eq)) {
        this.error(this.start(), this.end(), "expected '=' after the results of an operation");
        this.skipLine(first);
        return undefined;
      }
      this.p++;
    }
    const k = this.kind();
    if (k !== IDENT && k !== STRING) {
      if (results.length > 0 || first !== this.p) this.error(this.start(), this.end(), 'expected an operation name');
      if (this.p === first) return undefined;
      return undefined;
    }
    const generic = k === STRING;
    const name = generic ? this.strings.slice(this.text, this.start() + 1, this.end() - 1) : this.strings.slice(this.text, this.start(), this.end());
    const line = this.lines.lineOf(this.start());
    this.p++;
    return this.parseBody(s, name, generic, line, results);
  }

  /** op-body := everything up to the next statement: operands, attributes, regions, `: type`, `loc(…)`. */
  private parseBody(s: number, name: string, generic: boolean, line: number, results: MlirName[]): MlirOperation {
    const operands: MlirName[] = [];
    const args: MlirArgument[] = [];
    const attributes: MlirAttribute[] = [];
    const regions: MlirRegion[] = [];
    let symbol: string | undefined;
    let loc: Span | undefined;
    let colon = -1;
    let arrow = -1;
    let depth = 0;
    const bodyStart = this.p;
    for (;;) {
      const k = this.kind();
      if (k === EOF) break;
      if (depth === 0 && this.p > bodyStart && this.t.newline[this.p] === 1 && this.startsStatement()) break;
      if (k === PUNCT) {
        const c = this.t.code[this.p] ?? 0;
        if (c === C.rbrace) {
          if (depth > 0) this.error(this.start(), this.end(), "unbalanced '}' inside an operation");
          break;
        }
        if (c === C.lbrace) {
          if (!this.looksLikeRegion()) this.parseAttrDict(attributes);
          else if (this.depth < MAX_NESTING) regions.push(this.parseRegion());
          else this.skipTooDeep();
          continue;
        }
        if (c === C.lparen && this.kind(1) === PERCENT && this.isPunct(C.colon, 2)) {
          this.parseArgList(args);
          continue;
        }
        if (c === C.lparen || c === C.lbrack || c === C.lt) depth++;
        else if (c === C.rparen || c === C.rbrack || c === C.gt) {
          if (depth > 0) depth--;
          else this.error(this.start(), this.end(), `unexpected '${String.fromCharCode(c)}'`);
        } else if (c === C.colon && depth === 0) {
          colon = this.p;
          arrow = -1;
        }
        this.p++;
        continue;
      }
      if (k === ARROW && depth === 0) arrow = this.p;
      else if (k === PERCENT) {
        const item = { name: this.strings.slice(this.text, this.start(), this.end()), from: this.start(), to: this.end() };
        if (this.isPunct(C.eq, 1) && depth > 0) args.push({ ...item, type: '' });
        else operands.push(item);
      } else if (k === AT && depth === 0 && symbol === undefined) symbol = this.tokText();
      else if (k === IDENT && depth === 0 && this.isPunct(C.lparen, 1) && this.tokText() === 'loc') {
        const ls = this.start();
        this.p++;
        this.skipBalanced();
        loc = { from: ls, to: this.t.end[this.p - 1] ?? ls };
        continue;
      } else if (k === IDENT && depth === 0 && this.isPunct(C.eq, 1)) {
        this.parsePrettyAttr(attributes);
        continue;
      } else if (k === BAD) this.error(this.start(), this.end(), `unexpected character '${this.tokText()}'`);
      this.p++;
    }
    const e = this.p > bodyStart ? (this.t.end[this.p - 1] ?? s) : (this.t.end[bodyStart - 1] ?? s);
    const sig = signature(this.t, this.text, this.strings, name, colon, arrow);
    return { from: s, to: e, name, generic, line, results: keep(results), operands: keep(operands), symbol, args: keep(args), attributes: keep(attributes), regions: keep(regions), resultTypes: sig.results, operandTypes: sig.operands, loc };
  }

  /** region := `{` block* `}`; block := (`^label` (`(` arg-list `)`)? `:`)? operation* */
  private parseRegion(): MlirRegion {
    const s = this.start();
    this.p++;
    this.depth++;
    try {
      return this.parseBlocks(s);
    } finally {
      this.depth--;
    }
  }

  /** Reports a region nested past `MAX_NESTING` and skips it, so deep input cannot exhaust the stack. */
  private skipTooDeep(): void {
    this.error(this.start(), this.end(), `regions nested deeper than ${MAX_NESTING} levels are not read`);
    this.skipBalanced();
  }

  /** The blocks of a region whose `{` is consumed; `s` is its offset. */
  private parseBlocks(s: number): MlirRegion {
    const blocks: MlirBlock[] = [];
    let label: string | undefined;
    let args: MlirArgument[] = [];
    let ops: MlirOperation[] = [];
    let bs = this.start();
    const close = (e: number): void => {
      if (label !== undefined || ops.length > 0 || args.length > 0) blocks.push({ from: bs, to: e, label, args: keep(args), ops: keep(ops) });
    };
    for (;;) {
      const k = this.kind();
      if (k === EOF) {
        this.error(s, s + 1, "region is not closed: missing '}'");
        close(this.to);
        return { from: s, to: this.to, blocks: keep(blocks) };
      }
      if (this.isPunct(C.rbrace)) {
        close(this.start());
        this.p++;
        return { from: s, to: this.t.end[this.p - 1] ?? s, blocks: keep(blocks) };
      }
      if (k === CARET) {
        close(this.start());
        bs = this.start();
        label = this.tokText();
        args = [];
        ops = [];
        this.p++;
        if (this.isPunct(C.lparen)) this.parseArgList(args);
        if (this.isPunct(C.colon)) this.p++;
        else this.error(this.start(), this.end(), "expected ':' after a block label");
        continue;
      }
      this.pushOp(ops);
    }
  }

  /** arg-list := `(` (`%name` `:` type attr-dict? loc? (`,` …)*)? `)` */
  private parseArgList(args: MlirArgument[]): void {
    const close = matchClose(this.t, this.p);
    this.p++;
    while (this.p < close) {
      if (this.kind() === PERCENT && this.isPunct(C.colon, 1)) {
        const s = this.start();
        const name = this.tokText();
        this.p += 2;
        const types: string[] = [];
        let end = this.p;
        let depth = 0;
        let loc: Span | undefined;
        while (end < close) {
          const c = this.t.kind[end] === PUNCT ? this.t.code[end] : 0;
          if (depth === 0 && c === C.comma) break;
          if (c === C.lparen || c === C.lbrack || c === C.lt || c === C.lbrace) depth++;
          else if (c === C.rparen || c === C.rbrack || c === C.gt || c === C.rbrace) depth--;
          end++;
        }
        splitGroup(this.t, this.text, this.strings, this.p, end, types);
        for (let i = this.p; i < end; i++) {
          if (this.t.kind[i] === IDENT && this.text.slice(this.t.start[i], this.t.end[i]) === 'loc') {
            loc = { from: this.t.start[i] ?? 0, to: this.t.end[matchClose(this.t, i + 1)] ?? 0 };
            break;
          }
        }
        args.push({ name, from: s, to: this.t.end[end - 1] ?? s, type: types[0] ?? '', loc });
        this.p = end;
      } else this.p++;
    }
    this.p = close + 1;
  }

  /** attr-dict := `{` (key (`=` value)? (`,` …)*)? `}` */
  private parseAttrDict(out: MlirAttribute[]): void {
    const close = matchClose(this.t, this.p);
    this.p++;
    while (this.p < close) {
      const k = this.kind();
      if (k === IDENT || k === STRING || k === HASH) {
        const s = this.start();
        const key = k === STRING ? this.tokText().slice(1, -1) : this.tokText();
        this.p++;
        let value = '';
        let e = this.t.end[this.p - 1] ?? s;
        if (this.isPunct(C.eq)) {
          this.p++;
          const vs = this.start();
          this.skipValue(true, close);
          e = this.t.end[this.p - 1] ?? vs;
          value = this.text.slice(vs, e);
        }
        out.push({ from: s, to: e, key, value });
      }
      if (this.p < close) this.p++;
    }
    this.p = close + 1;
  }

  /** pretty-attr := ident `=` value, e.g. `contracting_dims = [1] x [0]`. */
  private parsePrettyAttr(out: MlirAttribute[]): void {
    const s = this.start();
    const key = this.tokText();
    this.p += 2;
    const vs = this.start();
    const before = this.p;
    let depth = 0;
    while (this.kind() !== EOF) {
      const c = this.kind() === PUNCT ? (this.t.code[this.p] ?? 0) : 0;
      if (depth === 0 && this.p > before) {
        if (c === C.comma || c === C.colon || c === C.lbrace || c === C.rbrace) break;
        if (this.t.newline[this.p] === 1 && this.startsStatement()) break;
        if (this.kind() === IDENT && this.isPunct(C.lparen, 1) && this.tokText() === 'loc') break;
      }
      if (depth === 0 && this.p === before && (c === C.comma || c === C.rbrace)) break;
      if (c === C.lparen || c === C.lbrack || c === C.lt || c === C.lbrace) depth++;
      else if (c === C.rparen || c === C.rbrack || c === C.gt || c === C.rbrace) {
        if (depth === 0) break;
        depth--;
      }
      this.p++;
    }
    const e = this.p > before ? (this.t.end[this.p - 1] ?? vs) : vs;
    out.push({ from: s, to: e, key, value: this.text.slice(vs, e) });
  }

  /** Skips one attribute value: balanced brackets, stopping at a depth-0 `,` (in dicts) or at `limit`. */
  private skipValue(inDict: boolean, limit = this.t.count): void {
    let depth = 0;
    const before = this.p;
    while (this.p < limit && this.kind() !== EOF) {
      const c = this.kind() === PUNCT ? (this.t.code[this.p] ?? 0) : 0;
      if (depth === 0 && inDict && c === C.comma) return;
      if (!inDict && depth === 0 && this.p > before && this.t.newline[this.p] === 1) return;
      if (c === C.lparen || c === C.lbrack || c === C.lt || c === C.lbrace) depth++;
      else if (c === C.rparen || c === C.rbrack || c === C.gt || c === C.rbrace) {
        if (depth === 0) return;
        depth--;
      }
      this.p++;
    }
  }





}
