import type { HloStackFrames } from './ast';
import { Ch, type Scanner } from './scanner';

/** Section names of the stack-frame tables, in the order XLA prints them. */
export const STACK_FRAME_SECTIONS = ['FileNames', 'FunctionNames', 'FileLocations', 'StackFrames'] as const;
export type StackFrameSection = (typeof STACK_FRAME_SECTIONS)[number];

/** Empty tables, for modules that print none. */
export function emptyStackFrames(): HloStackFrames {
  return { fileNames: new Map(), functionNames: new Map(), fileLocations: new Map(), frames: new Map() };
}

/**
 * section := Name row*, with rows such as
 *   FileNames      `1 "/src/model.py"`
 *   FunctionNames  `2 "f"`
 *   FileLocations  `3 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=11 end_column=47}`
 *   StackFrames    `3 {file_location_id=3 parent_frame_id=2}`
 * Reads rows while a line starts with a number; the cursor is just after the section name.
 */
export function parseStackFrameSection(s: Scanner, section: StackFrameSection, into: HloStackFrames): void {
  for (;;) {
    s.skipTrivia();
    const rowAt = s.pos;
    const id = s.integer();
    if (id < 0) return;
    s.skipSpaces();
    if (s.peek() === Ch.quote) {
      const value = s.string();
      if (section === 'FileNames') into.fileNames.set(id, value);
      else if (section === 'FunctionNames') into.functionNames.set(id, value);
      else s.error(rowAt, s.pos, `${section}: expected '{', found a string`);
    } else if (s.peek() === Ch.lbrace) {
      const fields = parseFields(s);
      if (section === 'FileLocations') {
        const column = fields.get('column');
        const loc = { fileNameId: fields.get('file_name_id') ?? 0, functionNameId: fields.get('function_name_id') ?? 0, line: fields.get('line') ?? 0 };
        into.fileLocations.set(id, column === undefined ? loc : { ...loc, column });
      } else if (section === 'StackFrames') {
        into.frames.set(id, { fileLocationId: fields.get('file_location_id') ?? 0, parentFrameId: fields.get('parent_frame_id') ?? 0 });
      } else {
        s.error(rowAt, s.pos, `${section}: expected a string, found '{'`);
      }
    } else {
      s.error(rowAt, s.pos + 1, `${section}: expected a string or '{' after the row number`);
      s.skipLine();
    }
  }
}

/** `{key=int key=int …}` → map; non-integer values are skipped. */
function parseFields(s: Scanner): Map<string, number> {
  const out = new Map<string, number>();
  s.pos++;
  for (;;) {
    s.skipTrivia();
    if (s.pos >= s.end) {
      s.error(s.end, s.end, "expected '}' before the end of the text");
      return out;
    }
    if (s.eat(Ch.rbrace)) return out;
    const keyAt = s.pos;
    const key = s.name();
    if (!key || !s.eat(Ch.eq)) {
      s.error(keyAt, s.pos + 1, 'expected key=value');
      s.skipValue();
      s.eat(Ch.rbrace);
      return out;
    }
    const n = s.integer();
    if (n < 0) s.skipValue();
    else out.set(key, n);
  }
}

/** File, line and column of a frame id, and the function it is in; undefined when the tables lack it. */
export function resolveFrame(t: HloStackFrames, frameId: number): { file?: string; line?: number; column?: number; fn?: string } | undefined {
  const frame = t.frames.get(frameId);
  if (!frame) return undefined;
  const loc = t.fileLocations.get(frame.fileLocationId);
  if (!loc) return undefined;
  return { file: t.fileNames.get(loc.fileNameId), line: loc.line || undefined, column: loc.column, fn: t.functionNames.get(loc.functionNameId) };
}
