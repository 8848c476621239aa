import type { DrillVerdict } from './types';

/** An einsum's operands and result, each a list of axis labels; `undefined` when `text` is not one. */
function readEinsum(text: string): string[][] | undefined {
  // `ij, jk -> ik`, `ij,jk→ik`: spaces anywhere, either arrow.
  const compact = text.replace(/\s+/g, '').replace('→', '->');
  const m = /^([A-Za-z]*),([A-Za-z]*)->([A-Za-z]*)$/.exec(compact);
  if (!m) return undefined;
  return [m[1] ?? '', m[2] ?? '', m[3] ?? ''].map((s) => [...s]);
}

/**
 * Canonical form of an einsum: letters renamed in order of first appearance (`ab,bc->ac` and
 * `ij,jk->ik` both give `ab,bc->ac`); `undefined` when `text` is not an einsum of two operands.
 * A label repeated within one operand (a diagonal) is kept as written.
 */
export function canonicalEinsum(text: string): string | undefined {
  const parts = readEinsum(text);
  if (!parts) return undefined;
  const names = new Map<string, string>();
  const rename = (c: string): string => {
    let n = names.get(c);
    if (n === undefined) {
      n = String.fromCharCode(97 + names.size);
      names.set(c, n);
    }
    return n;
  };
  const [lhs = [], rhs = [], out = []] = parts.map((p) => p.map(rename).join(''));
  return `${lhs},${rhs}->${out}`;
}

/** Whether `answer` is the einsum `expected` up to renaming letters and spacing. */
export function checkEinsum(expected: string, answer: string): DrillVerdict {
  const want = canonicalEinsum(expected);
  const got = canonicalEinsum(answer);
  if (got === undefined) return { correct: false, reason: 'not an einsum of two operands, like ij,jk->ik' };
  if (got === want) return { correct: true };
  return { correct: false, reason: 'a different contraction' };
}
