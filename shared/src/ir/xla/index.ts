import { DocumentKind } from '../../model/document';
import type { Analysis, OutlineEntry } from '../types';
import { parseBufferAssignment } from './buffer-assignment';
import { parseMemoryReport } from './memory-report';
import { textLines } from './text-lines';

export * from './types';
export { parseBufferAssignment, readAllocation } from './buffer-assignment';
export { parseMemoryReport, humanBytes } from './memory-report';
export { passStepOf } from './pass-step';
export { passSequence, passSequenceOfTexts, type PassDelta, type PassInput, type PassRow } from './pass-sequence';
export { AllocationLookup, mergeAssignments, type PlanComparison, type SpillAllocation } from './plan-join';

/**
 * Indexes XLA's buffer assignment: the parsed allocations in `index.xla.bufferAssignment`, one
 * outline entry per allocation (its values counted as ops). Never throws.
 */
export function indexBufferAssignment(text: string): Analysis {
  const { ast, diagnostics } = parseBufferAssignment(text);
  const starts = lineStarts(text);
  const outline: OutlineEntry[] = ast.allocations.map((a) => {
    const lineTo = a.values.length > 0 ? (a.values[a.values.length - 1]?.line ?? a.line) : a.line;
    return {
      name: `allocation ${a.index}`, kind: 'region', from: starts[a.line - 1] ?? 0, to: starts[lineTo] ?? text.length,
      lineFrom: a.line, lineTo, opCount: a.values.length,
    };
  });
  return { index: { ...empty(text, DocumentKind.bufferAssignment, starts.length), outline, xla: { bufferAssignment: ast } }, diagnostics };
}

/** Indexes XLA's memory-usage report: the parsed report in `index.xla.memoryReport`. Never throws. */
export function indexMemoryReport(text: string): Analysis {
  const { ast, diagnostics } = parseMemoryReport(text);
  return { index: { ...empty(text, DocumentKind.memoryReport, lineStarts(text).length), xla: { memoryReport: ast } }, diagnostics };
}

function empty(text: string, kind: DocumentKind, lines: number): Analysis['index'] {
  return { kind, bytes: text.length, lines: Math.max(1, lines), outline: [], values: [], dots: [], fusions: [], spills: [], keys: [] };
}

/** Offset where each line starts; an empty text has one (empty) line. */
function lineStarts(text: string): number[] {
  const out: number[] = [];
  for (const l of textLines(text)) out.push(l.from);
  if (out.length === 0 || text.endsWith('\n')) out.push(text.length);
  return out;
}
