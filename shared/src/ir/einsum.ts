/** Batch and contracting dimensions of a dot_general, as all three dialects state them. */
export interface DotDimensions {
  readonly lhsBatch: readonly number[];
  readonly rhsBatch: readonly number[];
  readonly lhsContracting: readonly number[];
  readonly rhsContracting: readonly number[];
}

const BATCH = 'bcdefgh';
const OTHER = 'ijklmnopqrstuvwxyzaBCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Einsum-like string of a dot_general from operand ranks: batch axes get `b, c, …`, the rest
 * `i, j, k, …` in lhs-then-rhs order, and the result lists batch, lhs free, then rhs free axes
 * (XLA's dot_general output order). `contracting [1] x [0]` on ranks 2·2 gives `ij,jk->ik`;
 * with batch `[0] x [0]` on 3·3, `bij,bjk->bik`. Out-of-range axes give `?`.
 */
export function einsumOf(lhsRank: number, rhsRank: number, d: DotDimensions): string {
  const lhs: string[] = new Array<string>(Math.max(0, lhsRank)).fill('');
  const rhs: string[] = new Array<string>(Math.max(0, rhsRank)).fill('');
  let other = 0;
  const next = (): string => OTHER[other++] ?? '?';
  const out: string[] = [];
  d.lhsBatch.forEach((a, k) => {
    const letter = BATCH[k] ?? next();
    if (a >= 0 && a < lhs.length) lhs[a] = letter;
    const b = d.rhsBatch[k];
    if (b !== undefined && b >= 0 && b < rhs.length) rhs[b] = letter;
    out.push(letter);
  });
  const contracted = new Map<number, number>();
  d.lhsContracting.forEach((a, k) => contracted.set(a, d.rhsContracting[k] ?? -1));
  for (let a = 0; a < lhs.length; a++) {
    if (lhs[a]) continue;
    const letter = next();
    lhs[a] = letter;
    const b = contracted.get(a);
    if (b === undefined) out.push(letter);
    else if (b >= 0 && b < rhs.length) rhs[b] = letter;
  }
  for (let b = 0; b < rhs.length; b++) {
    if (rhs[b]) continue;
    const letter = next();
    rhs[b] = letter;
    out.push(letter);
  }
  return `${lhs.join('')},${rhs.join('')}->${out.join('')}`;
}
