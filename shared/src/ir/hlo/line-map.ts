/**
 * 1-based line numbers of offsets in a text, by binary search over line starts found with
 * `indexOf` (one pass, no per-character work in JavaScript).
 */
export class LineMap {
  private readonly starts: Int32Array;
  readonly count: number;

  constructor(text: string) {
    // One pass, guessing a line per 64 characters and growing when the text has shorter lines.
    let starts = new Int32Array(Math.max(16, text.length >> 6));
    let n = 1;
    for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) {
      if (n === starts.length) {
        const more = new Int32Array(n * 2);
        more.set(starts);
        starts = more;
      }
      starts[n++] = p + 1;
    }
    this.starts = starts.subarray(0, n);
    this.count = n;
  }

  /** Index of the line found last: offsets mostly come in order, a line or two apart. */
  private last = 0;

  /** Line (1-based) holding `offset`. */
  lineAt(offset: number): number {
    const s = this.starts;
    const last = this.last;
    if ((s[last] ?? 0) <= offset) {
      for (let i = last; i < last + 4 && i < s.length; i++) {
        if (i + 1 === s.length || (s[i + 1] ?? 0) > offset) {
          this.last = i;
          return i + 1;
        }
      }
    }
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((s[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.last = lo;
    return lo + 1;
  }
}
