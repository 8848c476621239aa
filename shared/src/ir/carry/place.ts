import type { Annotation, Quote } from '../../model/annotation';
import type { LineMap, Lines } from './line-map';

/** Where a carried annotation goes in the new text: a range, or detached (at 0, keeping the original's quote). */
export type Placement =
  | { readonly detached: false; readonly from: number; readonly to: number }
  | { readonly detached: true };

function lineAt(l: Lines, pos: number): number {
  let lo = 0;
  let hi = l.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((l.starts[mid] as number) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The line's text range without its leading indent (the whole line when it is blank). */
function wholeLine(l: Lines, line: number): { from: number; to: number } {
  const text = l.lines[line] as string;
  const start = l.starts[line] as number;
  const indent = text.length - text.trimStart().length;
  return indent === text.length ? { from: start, to: start + text.length } : { from: start + indent, to: start + text.trimEnd().length };
}

/**
 * Where the quote stands in `next` with all its context: the exact text with the same prefix and
 * suffix around it, once and only once (a moved line); `null` otherwise.
 */
export function findQuote(next: Lines, quote: Quote): { from: number; to: number } | null {
  if (quote.exact === '') return null;
  const whole = quote.prefix + quote.exact + quote.suffix;
  const at = next.text.indexOf(whole);
  if (at < 0 || next.text.indexOf(whole, at + 1) >= 0) return null;
  const from = at + quote.prefix.length;
  return { from, to: from + quote.exact.length };
}

/**
 * Places one annotation of `prev` in `next` by the line map. On a line whose text is unchanged,
 * the same offsets within the line; on a changed line (a renamed instruction), the quoted text where
 * the line still holds it once, else the whole line; a range over several lines keeps its first and
 * last line. With no counterpart for its lines, its quote with all its context where that is found
 * once; else detached.
 */
export function placeAnnotation(prev: Lines, next: Lines, map: LineMap, a: Pick<Annotation, 'from' | 'to' | 'quote'>): Placement {
  if (a.from < 0 || a.to > prev.text.length || a.from > a.to) return { detached: true };
  const lf = lineAt(prev, a.from);
  const lt = lineAt(prev, Math.max(a.from, a.to - 1));
  const nf = map.to[lf] as number;
  const nt = map.to[lt] as number;
  if (nf < 0 || nt < 0 || nt < nf) {
    const found = findQuote(next, a.quote);
    return found ? { detached: false, ...found } : { detached: true };
  }
  const same = (o: number, n: number) => prev.lines[o] === next.lines[n];
  if (same(lf, nf) && same(lt, nt)) {
    return { detached: false, from: (next.starts[nf] as number) + a.from - (prev.starts[lf] as number), to: (next.starts[nt] as number) + a.to - (prev.starts[lt] as number) };
  }
  if (lf === lt) {
    const line = next.lines[nf] as string;
    const exact = a.quote.exact;
    const at = exact === '' ? -1 : line.indexOf(exact);
    if (at >= 0 && line.indexOf(exact, at + 1) < 0) {
      const from = (next.starts[nf] as number) + at;
      return { detached: false, from, to: from + exact.length };
    }
  }
  return { detached: false, from: wholeLine(next, nf).from, to: wholeLine(next, nt).to };
}
