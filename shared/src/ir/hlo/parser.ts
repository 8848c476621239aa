import type { ParseResult } from '../types';
import type { HloComputation, HloFile, HloInstruction, HloModule } from './ast';
import { copyInstruction, instructionRecord, parseInstruction, type InstructionRecord } from './instruction';
import { parseProtoModule } from './proto-text';
import { Ch, Scanner } from './scanner';
import { parseShape } from './shape';
import { SpanTable } from './span-table';
import { ParameterNumbers } from './parameter-numbers';
import { emptyStackFrames, parseStackFrameSection, STACK_FRAME_SECTIONS, type StackFrameSection } from './stack-frames';

interface ModuleBuilder {
  name: string;
  hasHeader: boolean;
  isScheduled: boolean;
  from: number;
  to: number;
  computations: HloComputation[];
  stackFrames: ReturnType<typeof emptyStackFrames>;
  /** Computations read, including those handed to a sink instead of kept. */
  count: number;
}

/**
 * Receives an HLO text as it is read, so a caller can index a large dump without ever holding its
 * whole parse tree: each computation is handed over as soon as its closing `}` is read, and is not
 * kept in the returned tree.
 */
export interface HloSink {
  /**
   * Opcodes whose operand names the sink reads. Other instructions are handed over with no
   * operands: their lists are still read and checked, but no name in them is built. All opcodes
   * when absent.
   */
  readonly operandsOf?: ReadonlySet<string>;
  /**
   * Hand a computation marked `ENTRY` over with every operand named, whatever `operandsOf` says,
   * so a sink that needs it whole can keep it rather than read it again.
   */
  readonly wholeEntry?: boolean;
  /**
   * When present, each instruction of a computation not handed over whole (all but a `wholeEntry`
   * entry and the proto form) comes here as soon as it is read, and that computation's
   * `instructions` stay empty. `ins` is one record rewritten for the next instruction, so it must
   * not be kept; `scope` is the computation it belongs to, its `to` not yet known.
   */
  instruction?(ins: HloInstruction, scope: HloComputation, module: HloModule): void;
  /**
   * One computation of `module`, in text order. `module.stackFrames` holds the tables read so far;
   * `module.computations` stays empty while computations are streamed. `fromText` is true when
   * `parseComputationAt(text, c.from)` reads the same computation again (false for the proto form).
   */
  computation(c: HloComputation, module: HloModule, fromText: boolean): void;
  /** The end of a module, with `count` computations handed over for it. */
  module(m: HloModule, count: number): void;
}

/**
 * Parses HLO text as XLA prints it (before or after optimization) and as its tests write it:
 * file := (module_header | stack_frame_section | computation)*
 * Several `HloModule` headers make several modules; `// CHECK` lines and `/* *\/` are comments;
 * indentation is free. Never throws: what cannot be read is skipped to the next line with an
 * error diagnostic, and the rest is still read.
 */
export function parseHlo(text: string, sink?: HloSink): ParseResult<HloFile> {
  const s = new Scanner(text);
  const numbers = new ParameterNumbers();
  const modules: HloModule[] = [];
  let current: ModuleBuilder | undefined;
  const finish = () => {
    if (!current || (!current.hasHeader && current.count === 0)) return;
    const { count, ...module } = current;
    modules.push(module);
    sink?.module(module, count);
  };
  const open = (from: number, hasHeader: boolean): ModuleBuilder => ({
    name: '', hasHeader, isScheduled: false, from, to: from, computations: [], stackFrames: emptyStackFrames(), count: 0,
  });
  for (;;) {
    s.skipTrivia();
    if (s.pos >= s.end) break;
    const at = s.pos;
    if (s.atWord('HloModule')) {
      finish();
      current = open(at, true);
      s.pos += 'HloModule'.length;
      parseHeader(s, current);
      current.to = s.pos;
      continue;
    }
    if (s.peek() === Ch.hash) {
      // `# RUN:` / `# CHECK:` lines of lit tests.
      s.skipLine();
      continue;
    }
    if (s.atWord('hlo_module')) {
      finish();
      current = undefined;
      const proto = parseProtoModule(s);
      modules.push(proto);
      if (sink) streamWhole(proto, sink);
      continue;
    }
    current ??= open(at, false);
    const section = STACK_FRAME_SECTIONS.find((w) => s.atWord(w));
    if (section) {
      s.pos += section.length;
      parseStackFrameSection(s, section as StackFrameSection, current.stackFrames);
    } else {
      const module = current;
      const each = sink?.instruction && ((ins: HloInstruction, scope: HloComputation) => sink.instruction?.(ins, scope, module));
      const comp = parseComputation(s, numbers, sink?.operandsOf, sink?.wholeEntry, each);
      if (!comp) {
        s.skipLine();
      } else {
        current.count++;
        if (sink) sink.computation(comp, current, true);
        else current.computations.push(comp);
      }
    }
    current.to = s.pos;
  }
  finish();
  return { ast: { modules }, diagnostics: s.diagnostics };
}

/** Hands a module read whole (the proto text form) to a sink, then empties it like a streamed one. */
function streamWhole(m: HloModule, sink: HloSink): void {
  const all = m.computations.splice(0);
  for (const c of all) sink.computation(c, m, false);
  sink.module(m, all.length);
}

/** module_header := `HloModule` name (`,` attr `=` value)* — e.g. `is_scheduled=true`. */
function parseHeader(s: Scanner, m: ModuleBuilder): void {
  s.skipSpaces();
  m.name = s.name();
  if (!m.name) s.error(s.pos, s.pos + 1, 'expected a module name after HloModule');
  // The old header form ends in a colon: `HloModule unterminated_comment:`.
  s.eat(Ch.colon);
  for (;;) {
    s.skipSpaces();
    if (!s.eat(Ch.comma)) return;
    s.skipTrivia();
    const keyAt = s.pos;
    const key = s.name();
    if (!key || !s.eat(Ch.eq)) {
      s.error(keyAt, s.pos + 1, 'expected attribute=value in the module header');
      s.skipLine();
      return;
    }
    const valueAt = s.pos;
    s.skipValue();
    if (key === 'is_scheduled') m.isScheduled = s.text.startsWith('true', valueAt);
  }
}

/**
 * The computation that starts at `from` in `text`, read again: a streaming indexer that dropped it
 * uses this for the few it needs whole at the end. Its diagnostics were reported the first time.
 */
export function parseComputationAt(text: string, from: number): HloComputation | undefined {
  const s = new Scanner(text);
  s.pos = from;
  return parseComputation(s, new ParameterNumbers());
}

/**
 * computation := `ENTRY`? name (`(` params `)` `->` shape)? (`,` attr `=` value)* `{` instruction* `}`
 * e.g. `%fused_computation (param_0: f32[8]) -> f32[8] {` or `ENTRY main.3 {`.
 */
function parseComputation(
  s: Scanner, numbers: ParameterNumbers, operandsOf?: ReadonlySet<string>, wholeEntry = false, each?: (ins: HloInstruction, scope: HloComputation) => void,
): HloComputation | undefined {
  const from = s.pos;
  const isEntry = s.atWord('ENTRY');
  if (isEntry) {
    s.pos += 5;
    s.skipTrivia();
  }
  const nameAt = s.pos;
  const name = s.name();
  if (!name) {
    s.error(nameAt, nameAt + 1, `expected a computation, found '${s.text.charAt(nameAt)}'`);
    return undefined;
  }
  s.skipTrivia();
  if (s.peek() === Ch.lparen) {
    s.skipGroup();
    s.skipTrivia();
    if (s.peek() === Ch.minus && s.peek(1) === Ch.gt) {
      s.pos += 2;
      parseShape(s);
      s.skipTrivia();
    }
  }
  while (s.eat(Ch.comma)) {
    s.skipTrivia();
    s.name();
    if (s.eat(Ch.eq)) s.skipValue();
    s.skipTrivia();
  }
  if (!s.eat(Ch.lbrace)) {
    s.error(nameAt, s.pos + 1, `expected '{' to open computation '${name}'`);
    return undefined;
  }
  const whole = isEntry && wholeEntry;
  const comp: { -readonly [K in keyof HloComputation]: HloComputation[K] } = { name, isEntry, instructions: [], from, to: from };
  parseBody(s, numbers, whole ? undefined : operandsOf, comp, whole ? undefined : each);
  comp.to = s.pos;
  skipTrailingAttributes(s);
  return comp;
}

/** `}, execution_thread="host"` after a computation's closing brace. */
function skipTrailingAttributes(s: Scanner): void {
  for (;;) {
    const at = s.pos;
    s.skipTrivia();
    if (!s.eat(Ch.comma)) {
      s.pos = at;
      return;
    }
    s.skipTrivia();
    s.name();
    if (s.eat(Ch.eq)) s.skipValue();
  }
}

/**
 * Instructions up to the computation's closing `}`, into `scope.instructions` or, when `each` is
 * given, to `each` as they are read; checks one ROOT and distinct parameter numbers.
 * Operand names are read for the opcodes in `operandsOf` (all when absent).
 */
function parseBody(
  s: Scanner, numbers: ParameterNumbers, operandsOf: ReadonlySet<string> | undefined, scope: HloComputation,
  each: ((ins: HloInstruction, scope: HloComputation) => void) | undefined,
): void {
  const instructions = scope.instructions;
  const bodyAt = s.pos;
  let rootName: string | undefined;
  numbers.forget();
  const ins: InstructionRecord = instructionRecord();
  // Names defined so far in this computation, so operands of a tree kept whole share their strings.
  const names = operandsOf === undefined ? new SpanTable<string>(s.text) : undefined;
  for (;;) {
    s.skipTrivia();
    if (s.pos >= s.end) {
      s.error(bodyAt - 1, bodyAt, "computation is not closed: expected '}' before the end of the text");
      return;
    }
    if (s.eat(Ch.rbrace)) return;
    const before = s.pos;
    if (!parseInstruction(s, names, operandsOf, ins)) {
      if (s.pos === before || s.text.charCodeAt(s.pos - 1) !== Ch.lf) s.skipLine();
      continue;
    }
    if (each) each(ins, scope);
    else instructions.push(copyInstruction(ins));
    if (ins.isRoot) {
      if (rootName !== undefined) s.error(ins.from, ins.to, `second ROOT '${ins.name}': '${rootName}' is already the root`);
      else rootName = ins.name;
    }
    if (ins.opcode === 'parameter' && ins.number >= 0) {
      if (numbers.note(ins.number)) s.error(ins.from, ins.to, `parameter number ${ins.number} appears twice`);
    }
  }
}
