/**
 * Whether the memory-usage report's total differs meaningfully from the buffer assignment's — by
 * more than 1% (the report's figures are rounded as printed; the two agree when XLA wrote both of one
 * compile, so a difference says they are of different compiles or one was cut short).
 */
export function totalsDiffer(assignmentBytes: number, reportBytes: number): boolean {
  return Math.abs(assignmentBytes - reportBytes) > 0.01 * Math.max(assignmentBytes, reportBytes);
}
