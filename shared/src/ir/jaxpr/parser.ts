import { LineIndex } from '../mlir/lines';
import type { Diagnostic, ParseResult, SourceRef } from '../types';
import type { Jaxpr, JaxprAtom, JaxprEquation, JaxprFile, JaxprParam } from './ast';
import { JTok, lexJaxpr, type JaxprComment, type JaxprToken } from './lexer';

const { eof: EOF, ident: IDENT, number: NUMBER, string: STRING, larrow: LARROW, punct: PUNCT } = JTok;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Deepest sub-jaxpr nesting read; deeper ones stay parameter text, with an error. */
const MAX_NESTING = 256;

const EOF_TOKEN: JaxprToken = { kind: EOF, from: 0, to: 0, newline: true, space: true };

/**
 * Parses jaxpr text: `let name = { lambda … } in` definitions, then `{ lambda consts ; ins. let
 * eqns in outs }` with typed (`a:f32[16,32]`) or legacy untyped binders, sub-jaxprs inside
 * parameters, literals (`1.0:f32[]`), `_` drops, state effects (`<-`), and source-info comments.
 * Never throws; text around the jaxpr is reported as info.
 */
export function parseJaxpr(text: string, lines: LineIndex = new LineIndex(text)): ParseResult<JaxprFile> {
  const p = new JaxprParser(text, lines);
  const ast = p.parseFile();
  return { ast, diagnostics: p.diagnostics };
}

class JaxprParser {
  readonly diagnostics: Diagnostic[] = [];
  private readonly tokens: readonly JaxprToken[];
  private readonly comments: readonly JaxprComment[];
  private readonly equations: Array<Mutable<JaxprEquation>> = [];
  private p = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly lines: LineIndex,
  ) {
    const lexed = lexJaxpr(text);
    this.tokens = lexed.tokens;
    this.comments = lexed.comments;
  }

  /** file := (`let` name `=` jaxpr `in`)* jaxpr+ */
  parseFile(): JaxprFile {
    const jaxprs: Jaxpr[] = [];
    let skippedFrom = -1;
    while (this.tok().kind !== EOF) {
      if (this.isWord('let') && this.tok(1).kind === IDENT && this.isPunct('=', 2) && this.isPunct('{', 3)) {
        const name = this.word(1);
        this.p += 3;
        jaxprs.push(this.parseJaxpr(name));
        if (this.isWord('in')) this.p++;
        else this.error(this.tok().from, this.tok().to, `expected 'in' after the definition of ${name}`);
        continue;
      }
      if (this.isPunct('{') && this.isWord('lambda', 1)) {
        jaxprs.push(this.parseJaxpr());
        continue;
      }
      if (skippedFrom < 0) skippedFrom = this.tok().from;
      if (jaxprs.length > 0) break;
      this.p++;
    }
    if (jaxprs.length === 0) this.error(0, this.text.length, 'no jaxpr found: expected `{ lambda … }`');
    else if (skippedFrom >= 0) this.diagnostics.push({ severity: 'info', message: 'text outside the jaxpr was not read', from: skippedFrom, to: Math.max(skippedFrom, this.text.length) });
    this.attachComments();
    return { from: 0, to: this.text.length, jaxprs };
  }

  /** jaxpr := `{` `lambda` binders (`;` binders)* `.` `let` equation* `in` outs `}` */
  private parseJaxpr(name?: string): Jaxpr {
    this.depth++;
    try {
      return this.parseJaxprBody(name);
    } finally {
      this.depth--;
    }
  }

  private parseJaxprBody(name?: string): Jaxpr {
    const start = this.tok().from;
    this.p++;
    if (this.isWord('lambda')) this.p++;
    else this.error(this.tok().from, this.tok().to, "expected 'lambda'");
    const sections: JaxprAtom[][] = [[]];
    for (;;) {
      const t = this.tok();
      if (this.isPunct('.')) { this.p++; break; }
      if (this.isPunct(';')) { this.p++; sections.push([]); continue; }
      if (t.kind === IDENT && !this.isWord('let')) { sections[sections.length - 1]?.push(this.parseAtom()); continue; }
      this.error(t.from, t.to, "expected a binder or '.' before 'let'");
      break;
    }
    const invars = sections[sections.length - 1] ?? [];
    const constvars = sections.length > 1 ? (sections[0] ?? []) : [];
    const equations: JaxprEquation[] = [];
    if (this.isWord('let')) this.p++;
    else this.error(this.tok().from, this.tok().to, "expected 'let'");
    while (!this.isWord('in')) {
      const t = this.tok();
      if (t.kind === EOF || this.isPunct('}')) {
        this.error(t.from, t.to, "expected 'in' to close the equations");
        break;
      }
      if (this.isPunct(';')) { this.p++; continue; }
      const before = this.p;
      const eq = this.parseEquation();
      if (eq) equations.push(eq);
      if (this.p === before) {
        this.error(t.from, t.to, `unexpected '${this.text.slice(t.from, t.to)}' in equations`);
        this.p++;
      }
    }
    if (this.isWord('in')) this.p++;
    const outvars = this.parseOuts();
    let end = this.tok().from;
    if (this.isPunct('}')) {
      end = this.tok().to;
      this.p++;
    } else this.error(this.tok().from, this.tok().to, "expected '}' to close the jaxpr");
    return { from: start, to: end, name, lineFrom: this.lines.lineOf(start), lineTo: this.lines.lineOf(Math.max(start, end - 1)), constvars, invars, equations, outvars };
  }

  /** outs := `(` atom (`,` atom)* `,`? `)` | `[` … `]` | atom* */
  private parseOuts(): JaxprAtom[] {
    const outs: JaxprAtom[] = [];
    const open = this.isPunct('(') ? ')' : this.isPunct('[') ? ']' : '';
    if (open) this.p++;
    for (;;) {
      const t = this.tok();
      if (t.kind === EOF) break;
      if (open && this.isPunct(open)) { this.p++; break; }
      if (!open && this.isPunct('}')) break;
      if (this.isPunct(',')) { this.p++; continue; }
      if (this.isAtomStart()) { outs.push(this.parseAtom()); continue; }
      this.error(t.from, t.to, `unexpected '${this.text.slice(t.from, t.to)}' in the outputs`);
      if (this.isPunct('}')) break;
      this.p++;
    }
    return outs;
  }

  /** equation := atom* (`=` | `<-`) primitive (`[` params `]`)? atom* */
  private parseEquation(): JaxprEquation | undefined {
    const start = this.tok();
    const bind = this.binderAt(this.p);
    const outvars: JaxprAtom[] = [];
    let binder: '=' | '<-' = '=';
    if (bind >= 0) {
      while (this.p < bind) outvars.push(this.parseAtom());
      binder = this.tok().kind === LARROW ? '<-' : '=';
      this.p++;
    }
    let primitive: string;
    const params: JaxprParam[] = [];
    if (binder === '<-') {
      primitive = outvars.some((o) => o.text.includes('[')) ? 'swap' : 'get';
    } else {
      const t = this.tok();
      if (t.kind !== IDENT) {
        this.error(t.from, t.to, 'expected a primitive name');
        this.skipLine();
        return undefined;
      }
      primitive = this.word();
      this.p++;
      if (this.isPunct('[') && !this.tok().space) this.parseParams(params);
    }
    const invars: JaxprAtom[] = [];
    for (;;) {
      const t = this.tok();
      if (t.kind === EOF || this.isPunct('}') || this.isWord('in')) break;
      if (this.isPunct(';')) { this.p++; break; }
      if (t.newline && this.binderAt(this.p) >= 0) break;
      if (!this.isAtomStart()) {
        this.error(t.from, t.to, `unexpected '${this.text.slice(t.from, t.to)}' in the operands of ${primitive}`);
        this.skipLine();
        break;
      }
      invars.push(this.parseAtom());
    }
    const last = this.tokens[this.p - 1] ?? start;
    const eq: Mutable<JaxprEquation> = { from: start.from, to: Math.max(start.from, last.to), line: this.lines.lineOf(start.from), outvars, primitive, params, invars, binder };
    this.equations.push(eq);
    return eq;
  }

  /** params := `[` (name `=` value)* `]`, where a value may hold `{ lambda … }` sub-jaxprs. */
  private parseParams(out: JaxprParam[]): void {
    const open = this.tok();
    this.p++;
    for (;;) {
      const t = this.tok();
      if (t.kind === EOF) {
        this.error(open.from, open.to, "parameters are not closed: missing ']'");
        return;
      }
      if (this.isPunct(']')) { this.p++; return; }
      if (this.isPunct(',')) { this.p++; continue; }
      if (t.kind !== IDENT || !this.isPunct('=', 1)) {
        this.error(t.from, t.to, `expected a parameter name, found '${this.text.slice(t.from, t.to)}'`);
        this.p++;
        continue;
      }
      const name = this.word();
      this.p += 2;
      const vs = this.tok().from;
      const jaxprs: Jaxpr[] = [];
      let depth = 0;
      let ve = vs;
      for (;;) {
        const v = this.tok();
        if (v.kind === EOF) break;
        if (depth === 0 && (this.isPunct(']') || (v.kind === IDENT && this.isPunct('=', 1) && ve > vs))) break;
        if (this.isPunct('{') && this.isWord('lambda', 1) && this.depth < MAX_NESTING) {
          jaxprs.push(this.parseJaxpr());
          ve = this.tokens[this.p - 1]?.to ?? ve;
          continue;
        }
        if (depth === 0 && this.isPunct('{') && this.isWord('lambda', 1)) this.error(v.from, v.to, `jaxprs nested deeper than ${MAX_NESTING} levels are not read`);
        if (this.isPunct('(') || this.isPunct('[') || this.isPunct('{')) depth++;
        else if (this.isPunct(')') || this.isPunct(']') || this.isPunct('}')) depth--;
        if (depth < 0) {
          this.error(v.from, v.to, `unbalanced '${this.text.slice(v.from, v.to)}' in parameter ${name}`);
          depth = 0;
        }
        ve = v.to;
        this.p++;
      }
      out.push({ from: t.from, to: ve, name, value: unescapeHtml(this.text.slice(vs, ve).trim()), jaxprs });
    }
  }

  /** atom := (ident | number | string | `*`) (`[`index`]`)? (`:` type)? */
  private parseAtom(): JaxprAtom {
    const t = this.tok();
    this.p++;
    let end = t.to;
    if (this.isPunct('[') && !this.tok().space) end = this.skipBalanced();
    const text = this.text.slice(t.from, end);
    let type = '';
    if (this.isPunct(':') && !this.tok().space && this.tok(1).kind === IDENT && !this.tok(1).space) {
      this.p++;
      const ts = this.tok().from;
      this.p++;
      let te = this.tokens[this.p - 1]?.to ?? ts;
      if (this.isPunct('<') && !this.tok().space) {
        while (this.tok().kind !== EOF && !this.isPunct('>')) this.p++;
        te = this.tok().to;
        this.p++;
      }
      if (this.isPunct('[') && !this.tok().space) te = this.skipBalanced();
      if (this.isPunct('{') && !this.tok().space && !this.isWord('lambda', 1)) te = this.skipBalanced();
      type = this.text.slice(ts, te);
    }
    const literal = t.kind === NUMBER || t.kind === STRING || text === 'True' || text === 'False' || text === 'inf' || text === '-inf' || text === 'nan';
    return { from: t.from, to: this.tokens[this.p - 1]?.to ?? end, text, type, literal };
  }

  /** Index of the `=`/`<-` that ends a binder list starting at `i`, or -1. */
  private binderAt(i: number): number {
    let j = i;
    for (;;) {
      const t = this.tokens[j] ?? EOF_TOKEN;
      if (t.kind === LARROW || (t.kind === PUNCT && this.text.charCodeAt(t.from) === 61)) return j > i || t.kind === LARROW ? j : -1;
      if (t.kind !== IDENT && !(t.kind === PUNCT && this.text.charCodeAt(t.from) === 42)) return -1;
      if (j > i && t.newline) return -1;
      j++;
      let u = this.tokens[j] ?? EOF_TOKEN;
      if (u.kind === PUNCT && this.text.charCodeAt(u.from) === 91 && !u.space) {
        j = this.matchClose(j) + 1;
        u = this.tokens[j] ?? EOF_TOKEN;
      }
      if (u.kind === PUNCT && this.text.charCodeAt(u.from) === 58 && !u.space) {
        j++;
        while ((this.tokens[j]?.kind ?? EOF) !== EOF && !(this.tokens[j]?.space ?? true)) {
          const c = this.text.charCodeAt(this.tokens[j]?.from ?? 0);
          j = c === 91 || c === 123 ? this.matchClose(j) + 1 : j + 1;
        }
      }
    }
  }

  private matchClose(i: number): number {
    let depth = 0;
    for (let j = i; j < this.tokens.length; j++) {
      const t = this.tokens[j] ?? EOF_TOKEN;
      if (t.kind === EOF) return j - 1;
      if (t.kind !== PUNCT) continue;
      const c = this.text.charCodeAt(t.from);
      if (c === 91 || c === 40 || c === 123) depth++;
      else if (c === 93 || c === 41 || c === 125) {
        depth--;
        if (depth <= 0) return j;
      }
    }
    return this.tokens.length - 1;
  }

  /** Skips a bracketed group at the cursor; returns the offset after it. */
  private skipBalanced(): number {
    const close = this.matchClose(this.p);
    const t = this.tokens[close] ?? EOF_TOKEN;
    if (t.kind === EOF || close >= this.tokens.length - 1) this.error(this.tok().from, this.tok().to, 'unclosed bracket');
    this.p = Math.min(close + 1, this.tokens.length - 1);
    return t.to;
  }

  /** Gives each equation the `#` comments between its start and the next equation's start. */
  private attachComments(): void {
    if (this.comments.length === 0) return;
    const eqs = [...this.equations].sort((a, b) => a.from - b.from);
    let c = 0;
    for (let i = 0; i < eqs.length; i++) {
      const eq = eqs[i];
      if (!eq) continue;
      const limit = eqs[i + 1]?.from ?? this.text.length;
      while (c < this.comments.length && (this.comments[c]?.from ?? 0) < eq.from) c++;
      while (c < this.comments.length && (this.comments[c]?.from ?? 0) < limit) {
        const text = this.comments[c]?.text ?? '';
        c++;
        const stack = /^\[(.*)\]$/.exec(text);
        if (stack) {
          if (eq.nameStack === undefined) eq.nameStack = stack[1] ?? '';
          continue;
        }
        if (eq.source === undefined) {
          const src = sourceOf(text);
          if (src) eq.source = src;
        }
      }
    }
  }

  private skipLine(): void {
    this.p++;
    while (this.tok().kind !== EOF && !this.tok().newline) this.p++;
  }

  private isAtomStart(): boolean {
    const t = this.tok();
    return t.kind === IDENT || t.kind === NUMBER || t.kind === STRING || this.isPunct('*');
  }

  private tok(ahead = 0): JaxprToken {
    return this.tokens[Math.min(this.p + ahead, this.tokens.length - 1)] ?? EOF_TOKEN;
  }

  private word(ahead = 0): string {
    const t = this.tok(ahead);
    return this.text.slice(t.from, t.to);
  }

  private isWord(w: string, ahead = 0): boolean {
    const t = this.tok(ahead);
    return t.kind === IDENT && t.to - t.from === w.length && this.text.startsWith(w, t.from);
  }

  private isPunct(ch: string, ahead = 0): boolean {
    const t = this.tok(ahead);
    return t.kind === PUNCT && this.text.charCodeAt(t.from) === ch.charCodeAt(0);
  }

  private error(from: number, to: number, message: string): void {
    this.diagnostics.push({ severity: 'error', message, from, to: Math.max(from, to) });
  }
}

/** `/path/file.py:12:3 (fn)` or `file.py:12 (fn)` → file, line, column; `undefined` for other text. */
function sourceOf(text: string): SourceRef | undefined {
  const m = /^(.+?):(\d+)(?::(\d+))?(?:\s+\((.*)\))?$/.exec(text);
  if (!m) return undefined;
  const ref: { file?: string; line?: number; column?: number } = { file: m[1], line: Number(m[2]) };
  if (m[3]) ref.column = Number(m[3]);
  return ref;
}

/** `&lt;lambda&gt;` → `<lambda>`, for parameter values of HTML-printed jaxprs. */
function unescapeHtml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}
