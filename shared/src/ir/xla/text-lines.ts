/** One line of a text: its content (without `\n` or `\r`), its offsets and its 1-based number. */
export interface TextLine {
  readonly text: string;
  readonly from: number;
  readonly to: number;
  readonly number: number;
  /** Whether a `\n` ends it (false for a last line cut short). */
  readonly ended: boolean;
}

/** The lines of `text`, in order, read lazily. */
export function* textLines(text: string): Generator<TextLine> {
  let from = 0;
  let number = 1;
  while (from < text.length) {
    const nl = text.indexOf('\n', from);
    const end = nl < 0 ? text.length : nl;
    const to = end > from && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    yield { text: text.slice(from, to), from, to, number, ended: nl >= 0 };
    from = end + 1;
    number++;
  }
}

/** A decimal integer that is exact in a double, or undefined: `"406863872"` → 406863872, `"99999999999999999999"` → undefined. */
export function safeInt(digits: string | undefined): number | undefined {
  if (digits === undefined || !/^\d{1,16}$/.test(digits)) return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
}
