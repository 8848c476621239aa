import { formatBytes } from '../../model/export';
import { checkBytes } from './bytes-answer';
import { checkDims, formatDimPair } from './dims-answer';
import { checkEinsum } from './einsum-answer';
import { checkFused } from './fused-answer';
import { MAX_ANSWER_CHARS, type DrillExpected, type DrillVerdict } from './types';

/**
 * Checks one answer against what the index states. Never throws: an answer that is not a string,
 * is empty, or is longer than `MAX_ANSWER_CHARS` is wrong with a reason, whatever it contains.
 */
export function checkAnswer(expected: DrillExpected, answer: unknown): DrillVerdict {
  if (typeof answer !== 'string' || answer.trim() === '') return { correct: false, reason: 'no answer' };
  if (answer.length > MAX_ANSWER_CHARS) return { correct: false, reason: `longer than ${MAX_ANSWER_CHARS} characters` };
  switch (expected.ask) {
    case 'einsum':
      return checkEinsum(expected.einsum, answer);
    case 'contracting':
    case 'batch':
      return checkDims(expected, answer);
    case 'fused':
      return checkFused(expected.fusion, answer);
    case 'bytes':
      return checkBytes(expected.bytes, answer);
  }
}

/** The expected answer as shown once revealed: `ij,jk->ik`, `[1] x [0]`, `fusion.3`, `not fused`, `2,048 B (2 KiB)`. */
export function formatExpected(expected: DrillExpected): string {
  switch (expected.ask) {
    case 'einsum':
      return expected.einsum;
    case 'contracting':
    case 'batch':
      return formatDimPair(expected.lhs, expected.rhs);
    case 'fused':
      return expected.fusion ?? 'not fused';
    case 'bytes':
      return formatBytes(expected.bytes);
  }
}
