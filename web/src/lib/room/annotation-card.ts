import type { Carried } from '@seam/shared/model';

/**
 * What a carried annotation's card says of where it came from: `carried from v1 · mlp: jaxpr`
 * (the version of the capture the original sits on, and its document's title), as much of it as is
 * known; `carried` alone when neither is.
 */
export function carriedFrom(c: Carried, versionOf: (captureId: string) => number | undefined, titleOf: (docId: string) => string | undefined): string {
  const v = c.captureId === undefined ? undefined : versionOf(c.captureId);
  const title = titleOf(c.docId);
  if (v !== undefined) return title !== undefined ? `carried from v${v} · ${title}` : `carried from v${v}`;
  return title !== undefined ? `carried from ${title}` : 'carried';
}

/** Offsets at which each line of a text starts: `[0, …]`, one entry per line. */
export function lineStarts(text: string): Uint32Array {
  let n = 1;
  for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) n++;
  const out = new Uint32Array(n);
  let i = 1;
  for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) out[i++] = p + 1;
  return out;
}

/** The 1-based line holding offset `pos`, from `lineStarts` of its text. */
export function lineAtOffset(starts: Uint32Array, pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** `line 14` or `lines 14–16` for a range `[from, to)`. */
export function lineLabel(starts: Uint32Array, from: number, to: number): string {
  const a = lineAtOffset(starts, from);
  const b = lineAtOffset(starts, Math.max(from, to - 1));
  return a === b ? `line ${a}` : `lines ${a}–${b}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * When an annotation was written, short, in local time: `14:05` today, `3 Dec 14:05` this year,
 * `3 Dec 2025` before; `''` for a time no date can hold.
 */
export function cardTime(ms: number, now: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const n = new Date(now);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const day = `${d.getDate()} ${MONTHS[d.getMonth()]}`;
  if (d.getFullYear() !== n.getFullYear()) return `${day} ${d.getFullYear()}`;
  if (d.getMonth() === n.getMonth() && d.getDate() === n.getDate()) return hm;
  return `${day} ${hm}`;
}
