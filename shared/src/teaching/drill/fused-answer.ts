import type { DrillVerdict } from './types';

/**
 * Whether `answer` says where an op is fused: the fusion instruction's name (`fusion.3`,
 * `%fusion.3`, `yes, fusion.3`, `into fusion.3`) when `fusion` is set, or `no` / `not fused`
 * when it is null.
 */
export function checkFused(fusion: string | null, answer: string): DrillVerdict {
  const t = answer.trim().toLowerCase();
  const saysNo = /^(no|not fused|unfused|none|n)\.?$/.test(t);
  if (fusion === null) return saysNo ? { correct: true } : { correct: false, reason: 'it is not fused' };
  if (saysNo) return { correct: false, reason: 'it is fused' };
  const names = t.match(/[a-z_][\w.\-]*/g) ?? [];
  const want = fusion.toLowerCase().replace(/^%/, '');
  if (names.some((n) => n.replace(/\.$/, '') === want)) return { correct: true };
  return { correct: false, reason: 'fused elsewhere' };
}
