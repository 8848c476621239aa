import type { DrillVerdict } from './types';

/** Ranks above this are not dimension numbers anyone writes; such an answer is read as not a list. */
const MAX_DIM = 64;

/** `1, 2` → `[1, 2]`; `none`, `-` or nothing → `[]`; anything else → `undefined`. */
function readList(text: string): number[] | undefined {
  const t = text.trim().replace(/^[[({]|[\])}]$/g, '').trim();
  if (t === '' || /^(none|no|-|–|∅|empty)$/i.test(t)) return [];
  const parts = t.split(/[\s,]+/).filter((p) => p !== '');
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,2}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > MAX_DIM) return undefined;
    out.push(n);
  }
  return out;
}

/**
 * Reads a pair of dimension lists: `[1] x [0]` (StableHLO's form), `lhs 1 rhs 0`, `{1},{0}`,
 * `1 / 0`, `1;0`, or `none` for no dimensions on either side. `undefined` when it is not a pair.
 */
export function readDimPair(text: string): { lhs: number[]; rhs: number[] } | undefined {
  const t = text.trim();
  if (/^(none|no|-|–|∅|empty|\[\]|\{\})$/i.test(t)) return { lhs: [], rhs: [] };
  const named = /^lhs\s*[:=]?\s*(.*?)[\s,;]*rhs\s*[:=]?\s*(.*)$/i.exec(t);
  if (named) return pair(named[1] ?? '', named[2] ?? '');
  const bracketed = [...t.matchAll(/[[{(]([^\]})]*)[\]})]/g)];
  if (bracketed.length === 2) return pair(bracketed[0]?.[1] ?? '', bracketed[1]?.[1] ?? '');
  const split = t.split(/\s*(?:\bx\b|×|;|\/|\|)\s*/);
  if (split.length === 2) return pair(split[0] ?? '', split[1] ?? '');
  return undefined;
}

function pair(lhs: string, rhs: string): { lhs: number[]; rhs: number[] } | undefined {
  const l = readList(lhs);
  const r = readList(rhs);
  return l && r ? { lhs: l, rhs: r } : undefined;
}

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Whether `answer` names the lhs and rhs dimensions `expected` states, in order (the k-th lhs
 * dimension pairs with the k-th rhs one, so order matters across pairs, as in the IR).
 */
export function checkDims(expected: { readonly lhs: readonly number[]; readonly rhs: readonly number[] }, answer: string): DrillVerdict {
  const got = readDimPair(answer);
  if (!got) return { correct: false, reason: 'not a pair of dimension lists, like [1] x [0]' };
  if (same(got.lhs, expected.lhs) && same(got.rhs, expected.rhs)) return { correct: true };
  return { correct: false, reason: 'other dimensions' };
}

/** `[1] x [0]`, or `none` for two empty lists: how the answer is shown once revealed. */
export function formatDimPair(lhs: readonly number[], rhs: readonly number[]): string {
  return lhs.length === 0 && rhs.length === 0 ? 'none' : `[${lhs.join(', ')}] x [${rhs.join(', ')}]`;
}
