import type { HloDotDims, HloInstruction, HloMetadata } from './ast';
import type { InternedShape } from './scanner';
import { parseIntList, parseMetadata, parseName, parseNameList } from './attributes';
import { Ch, isNameChar, type Scanner } from './scanner';
import { parseShape, skipShape } from './shape';
import type { SpanTable } from './span-table';
import { SpanTrie } from './span-trie';

const NO_SHAPE: InternedShape = { type: { tuple: [] }, bytes: 0, text: '' };

/**
 * The shape at the cursor, shared with every earlier instruction that printed the same text: a
 * large model repeats a few hundred types across 10^5 instructions, so one object (and one
 * string) per distinct type keeps the index small. The text is found by skipping, then parsed
 * only the first time it is seen.
 */
function internedShape(s: Scanner): InternedShape | undefined {
  const at = s.pos;
  skipShape(s);
  const end = s.pos;
  const known = s.shapes.get(at, end);
  if (known) return known;
  s.pos = at;
  const parsed = parseShape(s);
  if (!parsed) return undefined;
  const shape = { type: parsed.type, bytes: parsed.bytes, text: s.text.slice(at, s.pos) };
  if (s.pos === end) {
    s.shapes.set(at, end, shape);
    s.shapeTrie.set(s.text, at, end, shape);
  }
  return shape;
}

/**
 * The shape at the cursor when it is a plain array type seen before, `f32[2,128]{1,0}` (digits
 * and commas only, followed by a space or by nothing that could continue it): found by walking
 * the trie of shapes as its characters are read, with no other pass over them. Undefined, with the
 * cursor unmoved, for anything else, which the general reader then reads.
 */
function knownArrayShape(s: Scanner): InternedShape | undefined {
  const t = s.text;
  const trie = s.shapeTrie;
  const at = s.pos;
  let p = at;
  let node = SpanTrie.ROOT;
  let c = t.charCodeAt(p);
  // The dtype, without the `.` a name may hold (`startsShape` stops there too).
  while (c !== Ch.dot && isNameChar(c)) {
    node = trie.next(node, c);
    c = t.charCodeAt(++p);
  }
  if (p === at || c !== Ch.lbracket) return undefined;
  // `[2,128]`, then `{1,0}` if it follows at once: digits and commas between the brackets.
  let close: number = Ch.rbracket;
  for (;;) {
    node = trie.next(node, c);
    c = t.charCodeAt(++p);
    while ((c >= Ch.zero && c <= Ch.nine) || c === Ch.comma) {
      node = trie.next(node, c);
      c = t.charCodeAt(++p);
    }
    if (c !== close) return undefined;
    node = trie.next(node, c);
    c = t.charCodeAt(++p);
    if (close === Ch.rbrace || c !== Ch.lbrace) break;
    close = Ch.rbrace;
  }
  // `f32[8] {0}` has its layout after a space: the general reader's case.
  if (c === Ch.space && (t.charCodeAt(p + 1) === Ch.space || t.charCodeAt(p + 1) === Ch.lbrace)) return undefined;
  const known = trie.at(node);
  if (known) s.pos = p;
  return known;
}

/**
 * `metadata={…}` at the cursor, shared with every earlier instruction that printed the same text
 * (a model unrolled over layers repeats its name stacks): parsed once per distinct text.
 * Metadata nearly always ends at its first `}` (no nested group, no `}` in a string), so the text
 * up to there is looked up; it is only stored when the group did end there, since the
 * same characters then always end it at the same place.
 */
function internedMetadata(s: Scanner): HloMetadata | undefined {
  const at = s.pos;
  if (s.peek() !== Ch.lbrace) return parseMetadata(s);
  const close = s.text.indexOf('}', at);
  const known = close < 0 ? undefined : s.metadata.get(at, close + 1);
  if (known) {
    s.pos = close + 1;
    return known;
  }
  // Only finds the end: what is wrong inside (an unterminated string) is for the metadata reader to say.
  const reported = s.diagnostics.length;
  const closed = s.skipGroup(false);
  s.diagnostics.length = reported;
  const end = s.pos;
  s.pos = at;
  const parsed = parseMetadata(s);
  if (!closed) return parsed;
  if (parsed && s.pos === end && end === close + 1) s.metadata.set(at, end, parsed);
  return parsed;
}

const NO_OPERANDS: readonly string[] = Object.freeze([]);


/**
 * instruction := `ROOT`? name `=` shape opcode `(` operands `)` (`,` attr `=` value)*
 * e.g. `ROOT %fusion = f32[8]{0} fusion(f32[8]{0} %p0, %p1), kind=kLoop, calls=%fused_computation`.
 * `names` holds the names defined so far, which operands then share (none when streaming); operand
 * names are built only for the opcodes in `operandsOf` (all when absent). The fields are written into
 * `into`, one record reused for every instruction so that a streaming reader allocates nothing per
 * instruction but what it keeps (`copyInstruction` makes a tree's own object). Returns false, with a
 * diagnostic, when the instruction cannot be read.
 */
export function parseInstruction(
  s: Scanner, names: SpanTable<string> | undefined, operandsOf: ReadonlySet<string> | undefined, into: InstructionRecord,
): boolean {
  const from = s.pos;
  const isRoot = s.atWord('ROOT');
  if (isRoot) {
    s.pos += 4;
    s.skipTrivia();
  }
  s.eat(Ch.percent);
  const nameAt = s.pos;
  const name = s.name();
  if (name && names) names.setKey(name, name);
  s.skipTrivia();
  if (!name || !s.eat(Ch.eq)) {
    s.error(nameAt, Math.max(s.pos, nameAt + 1), name ? `expected '=' after '${name}'` : `expected an instruction, found '${s.text.charAt(nameAt)}'`);
    return false;
  }
  s.skipTrivia();
  // The shape may be left out where XLA can infer it: `ROOT compare = compare(p0, ten), direction=LT`.
  const shape = knownArrayShape(s) ?? (startsShape(s) ? internedShape(s) : NO_SHAPE);
  if (!shape) return false;
  const typeText = shape.text;
  s.skipTrivia();
  const opAt = s.pos;
  const opcode = s.word();
  if (!opcode || s.peek() !== Ch.lparen) {
    s.error(opAt, opAt + Math.max(1, opcode.length), opcode ? `expected '(' after opcode '${opcode}'` : 'expected an opcode');
    return false;
  }
  let number = -1;
  let operands: readonly string[];
  // Their parenthesised part is a number or a literal, not operand names (opcodes are internalized,
  // so these are pointer comparisons).
  if (opcode === 'parameter' || opcode === 'constant') {
    const open = s.pos;
    s.skipGroup();
    if (opcode === 'parameter') number = readInt(s.text, open + 1, s.pos);
    operands = NO_OPERANDS;
  } else {
    operands = parseOperands(s, names, operandsOf === undefined || operandsOf.has(opcode));
  }
  let fusionKind: string | undefined;
  let calls: string[] | undefined;
  let toApply: string | undefined;
  let condition: string | undefined;
  let body: string | undefined;
  let branches: string[] | undefined;
  let metadata: HloMetadata | undefined;
  let dot: HloDotDims | undefined;
  let customCallTarget: string | undefined;
  let kernelName: string | undefined;
  let to = s.pos;
  for (;;) {
    s.skipTrivia();
    if (s.peek() !== Ch.comma) break;
    s.pos++;
    s.skipTrivia();
    const keyAt = s.pos;
    // Keys are matched in place, not sliced: most instructions carry several attributes.
    switch (s.peek()) {
      case M: if (s.keyword('metadata')) { metadata = internedMetadata(s); break; } unknown(s, keyAt); break;
      case K: if (s.keyword('kind')) { fusionKind = s.word(); break; } unknown(s, keyAt); break;
      case C:
        if (s.keyword('calls')) calls = parseNameList(s);
        else if (s.keyword('condition')) condition = parseName(s);
        else if (s.keyword('custom_call_target')) customCallTarget = s.peek() === Ch.quote ? s.string() : undefined;
        else unknown(s, keyAt);
        break;
      case T:
        if (s.keyword('to_apply')) toApply = parseName(s);
        else if (s.keyword('true_computation')) branches = [parseName(s), ...(branches ?? [])];
        else unknown(s, keyAt);
        break;
      case B:
        if (s.keyword('body')) body = parseName(s);
        else if (s.keyword('branch_computations')) branches = parseNameList(s);
        else if (opcode === 'custom-call' && s.keyword('backend_config')) {
          const at = s.pos;
          s.skipValue();
          kernelName = kernelNameIn(s.text.slice(at, s.pos));
        } else unknown(s, keyAt);
        break;
      case F: if (s.keyword('false_computation')) { (branches ??= []).push(parseName(s)); break; } unknown(s, keyAt); break;
      case I: if (s.keyword('index')) { number = s.integer(); break; } unknown(s, keyAt); break;
      case L:
        if (s.keyword('literal')) skipLiteral(s);
        else if (s.keyword('lhs_batch_dims')) (dot ??= emptyDot()).lhsBatch = parseIntList(s);
        else if (s.keyword('lhs_contracting_dims')) (dot ??= emptyDot()).lhsContracting = parseIntList(s);
        else unknown(s, keyAt);
        break;
      case R:
        if (s.keyword('rhs_batch_dims')) (dot ??= emptyDot()).rhsBatch = parseIntList(s);
        else if (s.keyword('rhs_contracting_dims')) (dot ??= emptyDot()).rhsContracting = parseIntList(s);
        else unknown(s, keyAt);
        break;
      default: unknown(s, keyAt);
    }
    if (s.pos === keyAt) break;
    if (s.pos < s.end && !isValueEnd(s.peek())) s.skipValue();
    to = s.pos;
  }
  if (opcode === 'dot') dot ??= emptyDot();
  const any = fusionKind !== undefined || calls !== undefined || toApply !== undefined || condition !== undefined
    || body !== undefined || branches !== undefined || dot !== undefined || customCallTarget !== undefined;
  into.name = name;
  into.isRoot = isRoot;
  into.opcode = opcode;
  into.type = shape.type;
  into.typeText = typeText;
  into.bytes = shape.bytes;
  into.operands = operands;
  into.number = number;
  into.metadata = metadata;
  into.attrs = any ? { fusionKind, calls, toApply, condition, body, branches, dot, customCallTarget, kernelName } : undefined;
  into.from = from;
  into.to = to;
  return true;
}

/** The record `parseInstruction` writes into: an instruction whose fields change as the next is read. */
export type InstructionRecord = { -readonly [K in keyof HloInstruction]: HloInstruction[K] };

/** A record to read instructions into, before the first is read. */
export function instructionRecord(): InstructionRecord {
  return copyInstruction({
    name: '', isRoot: false, opcode: '', type: NO_SHAPE.type, typeText: '', bytes: 0, operands: NO_OPERANDS, number: -1,
    metadata: undefined, attrs: undefined, from: 0, to: 0,
  });
}

/** An instruction of its own with the fields of `r`, for a tree or a reader that keeps it. */
export function copyInstruction(r: HloInstruction): InstructionRecord {
  return {
    name: r.name, isRoot: r.isRoot, opcode: r.opcode, type: r.type, typeText: r.typeText, bytes: r.bytes, operands: r.operands,
    number: r.number, metadata: r.metadata, attrs: r.attrs, from: r.from, to: r.to,
  };
}

const [B, C, F, I, K, L, M, R, T] = [...'bcfiklmrt'].map((c) => c.charCodeAt(0));

/** An attribute this reader does not decode, `backend_config={…}`: its key and value are skipped. */
function unknown(s: Scanner, keyAt: number): void {
  if (s.skipName() === 0 || !s.eat(Ch.eq)) {
    s.error(keyAt, s.pos + 1, 'expected attribute=value');
    s.pos = keyAt;
    return;
  }
  s.skipValue();
}

/**
 * The kernel name in a custom-call's backend config, which is JSON printed as a string or bare:
 * `backend_config="{\"kernel_name\": \"matmul_kernel\", …}"` or `backend_config={"name":"fa"}`.
 */
function kernelNameIn(config: string): string | undefined {
  return /\\?"(?:kernel_name|name)\\?"\s*:\s*\\?"([^"\\]{1,200})/.exec(config)?.[1];
}

/** `literal=f32[] 0.1` or `literal=( s32[2]{0} {4, 3}, pred[] 1 )`. */
function skipLiteral(s: Scanner): void {
  s.skipTrivia();
  if (s.peek() === Ch.lparen) {
    s.skipGroup();
    return;
  }
  if (parseShape(s)) s.skipTrivia();
  s.skipValue();
}

function isValueEnd(c: number): boolean {
  return c === Ch.comma || c === Ch.space || c === Ch.lf || c === Ch.cr || c === Ch.tab || c === Ch.rbrace;
}

function emptyDot(): HloDotDims {
  return { lhsBatch: [], rhsBatch: [], lhsContracting: [], rhsContracting: [] };
}

/**
 * operands := `(` (operand (`,` operand)*)? `)`; operand := shape? name
 * e.g. `(f32[2,3]{1,0} %a, %b)`, `(a, b)`, `((f32[], s32[]) %t)`.
 * Without `collect` the list is only read past (with the same diagnostics) and none is returned.
 */
function parseOperands(s: Scanner, names: SpanTable<string> | undefined, collect: boolean): readonly string[] {
  // Without `collect` nothing is pushed here, and the shared empty list is returned.
  const out: string[] = collect ? [] : (NO_OPERANDS as string[]);
  const open = s.pos;
  const t = s.text;
  // The form XLA prints, `(%a, %b)`, read name by name without the general steps below, which
  // take over at the first operand written any other way.
  let p = open + 1;
  s.pos = p;
  while (t.charCodeAt(p) === Ch.percent) {
    const at = p + 1;
    p = at;
    while (isNameChar(t.charCodeAt(p))) p++;
    const c = t.charCodeAt(p);
    const last = c === Ch.rparen;
    if (p === at || !(last || (c === Ch.comma && t.charCodeAt(p + 1) === Ch.space))) break;
    if (collect) out.push(names?.get(at, p) ?? t.slice(at, p));
    p += last ? 1 : 2;
    s.pos = p;
    if (last) return out;
  }
  for (;;) {
    s.skipTrivia();
    const c = s.peek();
    if (c === Ch.rparen) {
      s.pos++;
      return out;
    }
    if (c < 0) {
      s.error(open, open + 1, "operand list is not closed: expected ')'");
      return out;
    }
    if (startsShape(s)) {
      skipShape(s);
      s.skipTrivia();
    }
    // An operand is the defining instruction's own name string when it was defined earlier.
    s.eat(Ch.percent);
    const nameAt = s.pos;
    const length = s.skipName();
    const nameTo = s.pos;
    s.skipTrivia();
    // A nested instruction, `add(f32[10] parameter(0), multiply(…))`, is read past, not named.
    if (length > 0 && s.peek() === Ch.lparen) s.skipGroup();
    else if (length > 0 && collect) out.push(names?.get(nameAt, nameTo) ?? s.text.slice(nameAt, nameTo));
    s.skipTrivia();
    if (s.eat(Ch.comma)) continue;
    if (s.peek() === Ch.rparen) continue;
    const at = s.pos;
    s.skipValue();
    if (s.pos === at && at < s.end) {
      s.error(at, at + 1, "expected ',' or ')' in operands");
      s.pos++;
    }
  }
}

/** True when an operand begins with its type: `(` for a tuple, `f32[`, or a buffer `b(`. */
function startsShape(s: Scanner): boolean {
  const t = s.text;
  let p = s.pos;
  const c0 = t.charCodeAt(p);
  if (c0 === Ch.lparen) return true;
  if (c0 === Ch.percent) return false;
  while (p < s.end && isNameChar(t.charCodeAt(p)) && t.charCodeAt(p) !== Ch.dot) p++;
  const next = t.charCodeAt(p);
  if (next === Ch.lbracket) return p > s.pos;
  return next === Ch.lparen && p === s.pos + 1 && c0 === 98;
}

/** Decimal integer in `text[from, to)`, skipping spaces; -1 when there is none. */
function readInt(text: string, from: number, to: number): number {
  let n = -1;
  for (let p = from; p < to; p++) {
    const c = text.charCodeAt(p);
    if (c >= Ch.zero && c <= Ch.nine) n = (n < 0 ? 0 : n * 10) + (c - Ch.zero);
    else if (n >= 0) break;
  }
  return n;
}
