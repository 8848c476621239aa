/**
 * Line alignment of two texts, as a diff of lines pairs them: equal lines in order, found by
 * patience (lines unique on both sides anchor the alignment; the stretches between anchors are
 * aligned again), with an exact longest common subsequence only where a stretch is small. Bounded
 * work on big dumps: a stretch with no unique line larger than {@link LCS_CELLS} cells is left
 * unaligned rather than compared line by line.
 */

/** Most cells (lines of A × lines of B) one stretch may have to be aligned exactly. */
export const LCS_CELLS = 1 << 20;

const NONE = -1;

/**
 * Pairs equal keys of `a` and `b` in order; returns, for each index of `a`, the index of `b` it is
 * paired with, or -1. Only `[aFrom, aTo)` and `[bFrom, bTo)` are looked at; `out` is filled in place.
 */
export function alignKeys(a: readonly string[], b: readonly string[], out: Int32Array, aFrom = 0, aTo = a.length, bFrom = 0, bTo = b.length): void {
  const stack: [number, number, number, number][] = [[aFrom, aTo, bFrom, bTo]];
  while (stack.length > 0) {
    let [a0, a1, b0, b1] = stack.pop() as [number, number, number, number];
    while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out[a0++] = b0++;
    while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) out[--a1] = --b1;
    if (a0 >= a1 || b0 >= b1) continue;
    const anchors = uniqueAnchors(a, b, a0, a1, b0, b1);
    if (anchors.length > 0) {
      let pa = a0;
      let pb = b0;
      for (const [i, j] of anchors) {
        out[i] = j;
        stack.push([pa, i, pb, j]);
        pa = i + 1;
        pb = j + 1;
      }
      stack.push([pa, a1, pb, b1]);
    } else if ((a1 - a0) * (b1 - b0) <= LCS_CELLS) {
      lcs(a, b, a0, a1, b0, b1, out);
    }
  }
}

/** Lines that occur once in each stretch, paired, reduced to their longest increasing chain (in A's order). */
function uniqueAnchors(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number): [number, number][] {
  // For each key: its count in A's stretch and last index there, and likewise in B's.
  const seen = new Map<string, { na: number; ia: number; nb: number; ib: number }>();
  for (let i = a0; i < a1; i++) {
    const k = a[i] as string;
    const e = seen.get(k);
    if (e) e.na++;
    else seen.set(k, { na: 1, ia: i, nb: 0, ib: NONE });
  }
  for (let j = b0; j < b1; j++) {
    const e = seen.get(b[j] as string);
    if (!e) continue;
    e.nb++;
    e.ib = j;
  }
  const pairs: [number, number][] = [];
  for (const e of seen.values()) if (e.na === 1 && e.nb === 1) pairs.push([e.ia, e.ib]);
  pairs.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(pairs);
}

/** The longest chain of pairs increasing in both indices (patience sorting on B's index). */
function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = [];
  const prev = new Int32Array(pairs.length).fill(NONE);
  for (let k = 0; k < pairs.length; k++) {
    const j = (pairs[k] as [number, number])[1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((pairs[tails[mid] as number] as [number, number])[1] < j) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[k] = tails[lo - 1] as number;
    tails[lo] = k;
  }
  const out: [number, number][] = [];
  for (let k = tails.length > 0 ? (tails[tails.length - 1] as number) : NONE; k !== NONE; k = prev[k] as number) out.push(pairs[k] as [number, number]);
  return out.reverse();
}

/** Exact longest common subsequence of two small stretches. */
function lcs(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number, out: Int32Array): void {
  const n = a1 - a0;
  const m = b1 - b0;
  const t = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i * (m + 1) + j] = a[a0 + i] === b[b0 + j] ? (t[(i + 1) * (m + 1) + j + 1] as number) + 1 : Math.max(t[(i + 1) * (m + 1) + j] as number, t[i * (m + 1) + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j]) {
      out[a0 + i] = b0 + j;
      i++;
      j++;
    } else if ((t[(i + 1) * (m + 1) + j] as number) >= (t[i * (m + 1) + j + 1] as number)) i++;
    else j++;
  }
}

/**
 * Aligns two texts' lines: lines equal once `normalize` has taken out what a re-capture renames
 * (variable and value names, source positions), so a renamed line still pairs with its own. Returns,
 * for each 0-based line of `a`, the 0-based line of `b` it stands for, or -1.
 */
export function alignLines(a: readonly string[], b: readonly string[], normalize: (line: string) => string): Int32Array {
  const out = new Int32Array(a.length).fill(NONE);
  alignKeys(a.map(normalize), b.map(normalize), out);
  return out;
}
