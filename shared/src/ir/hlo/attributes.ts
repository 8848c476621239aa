import type { HloMetadata } from './ast';
import { Ch, type Scanner } from './scanner';

/** int_list := `{` (int (`,` int)*)? `}`, as in `lhs_contracting_dims={1}`. Reads through the group. */
export function parseIntList(s: Scanner): number[] {
  if (!s.eat(Ch.lbrace)) {
    s.skipValue();
    return [];
  }
  return readListItems(s, () => {
    const n = s.integer();
    return n < 0 ? undefined : n;
  }, "expected an integer or '}' in a list");
}

/** name_list := `%name` | `{` (`%name` (`,` `%name`)*)? `}`, as in `calls=%f` or `branch_computations={%a, %b}`. */
export function parseNameList(s: Scanner): string[] {
  s.skipTrivia();
  if (!s.eat(Ch.lbrace)) {
    const one = s.name();
    if (!one) s.skipValue();
    return one ? [one] : [];
  }
  return readListItems(s, () => s.name() || undefined, "expected a computation name or '}'");
}

/**
 * The items of a braced list after its `{`, through its `}`. An item `read` cannot read is
 * reported with `expected`; the rest of the value is skipped and what was read so far returned.
 */
function readListItems<T>(s: Scanner, read: () => T | undefined, expected: string): T[] {
  const out: T[] = [];
  for (;;) {
    s.skipTrivia();
    if (s.eat(Ch.rbrace)) return out;
    const item = read();
    if (item === undefined) {
      s.error(s.pos, s.pos + 1, expected);
      s.skipValue();
      s.eat(Ch.rbrace);
      return out;
    }
    out.push(item);
    s.skipTrivia();
    s.eat(Ch.comma);
  }
}

/** A single name value, `to_apply=%add`; '' with a diagnostic when missing. */
export function parseName(s: Scanner): string {
  s.skipTrivia();
  const n = s.name();
  if (!n) {
    s.error(s.pos, s.pos + 1, 'expected a computation name');
    s.skipValue();
  }
  return n;
}

/**
 * metadata := `{` (key `=` value)* `}` with keys such as `op_type`, `op_name`, `source_file`,
 * `source_line`, `stack_frame_id`, `profile_type={1}`, `deduplicated_name`; unknown keys are
 * skipped so newer XLA fields cost nothing.
 */
export function parseMetadata(s: Scanner): HloMetadata | undefined {
  if (!s.eat(Ch.lbrace)) {
    s.skipValue();
    return undefined;
  }
  const m: { opName?: string; opType?: string; sourceFile?: string; sourceLine?: number; stackFrameId?: number } = {};
  for (;;) {
    s.skipTrivia();
    if (s.pos >= s.end) {
      s.error(s.end, s.end, "metadata: expected '}' before the end of the text");
      return m;
    }
    if (s.eat(Ch.rbrace)) return m;
    if (s.eat(Ch.comma)) continue;
    const keyAt = s.pos;
    // Keys are matched in place: every instruction of a compiled dump carries metadata.
    if (s.keyword('op_name')) m.opName = quoted(s);
    else if (s.keyword('source_file')) m.sourceFile = quoted(s);
    else if (s.keyword('source_line')) m.sourceLine = integer(s);
    else if (s.keyword('stack_frame_id')) m.stackFrameId = integer(s);
    else if (s.keyword('op_type')) m.opType = quoted(s);
    else if (s.skipName() > 0 && s.eat(Ch.eq)) s.skipValue();
    else {
      s.error(keyAt, s.pos + 1, 'metadata: expected key=value');
      s.skipValue();
      s.eat(Ch.rbrace);
      return m;
    }
  }
}

/** A `"…"` value, or undefined (skipping the value) when it is not a string. */
function quoted(s: Scanner): string | undefined {
  if (s.peek() === Ch.quote) return s.string();
  s.skipValue();
  return undefined;
}

/** An unsigned integer value, or undefined (skipping the value) when it is not one. */
function integer(s: Scanner): number | undefined {
  const n = s.integer();
  if (n >= 0) return n;
  s.skipValue();
  return undefined;
}
