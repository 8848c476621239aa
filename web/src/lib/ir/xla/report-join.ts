import type { AllocatedValue, Allocation, BufferAssignment, MemoryReport, MemoryReportRow } from '@seam/shared/ir';

/** One table of a memory-usage report (one allocation), with the buffer assignment's allocation when exactly one matches it. */
export interface ReportAllocation {
  /** Position among the report's tables, from 1, across memory spaces. */
  readonly n: number;
  readonly space: string;
  readonly color: number;
  /** The allocation's size: the buffer assignment's when joined, else the end of its last row (as rounded in the report). */
  readonly bytes: number;
  readonly rows: readonly ReportValue[];
  readonly allocation?: Allocation;
}

/** One row of a report table (values sharing one offset), with the buffer assignment's values there when its allocation is joined. */
export interface ReportValue {
  readonly table: number;
  readonly row: MemoryReportRow;
  readonly values: readonly AllocatedValue[];
}

/** `f32[32,64]{1,0}` → `f32[32,64]`: the layout (and memory space) the report leaves out. */
export function shapeWithoutLayout(shape: string): string {
  return shape.replace(/\{[^{}]*\}/g, '');
}

/** Whether `bytes` (exact) is what the report printed as `row` (rounded to its unit, as XLA's `HumanReadableNumBytes` does). */
function sameSize(bytes: number, row: MemoryReportRow): boolean {
  return row.sizeText.endsWith('iB') ? Math.abs(bytes - row.bytes) <= Math.max(1, row.bytes * 0.01) : bytes === row.bytes;
}

/** The values of `a` a report row describes: at its offset, of one of its shapes. */
function valuesAt(a: Allocation, row: MemoryReportRow): AllocatedValue[] {
  const shapes = new Set(row.shapes.map((s) => s.shape));
  return a.values.filter((v) => v.offset === row.offset && sameSize(v.size, row) && shapes.has(shapeWithoutLayout(v.shape)));
}

function matches(a: Allocation, color: number, rows: readonly MemoryReportRow[]): boolean {
  return a.color === color && rows.length > 0 && rows.every((r) => valuesAt(a, r).length > 0);
}

/**
 * The report's tables, each joined to the buffer assignment's allocation whose values sit at its
 * rows' offsets with its rows' shapes and sizes — only when exactly one allocation does (XLA prints
 * no allocation index in the report; several small constants look alike, and a guess would name the
 * wrong values). Never throws.
 */
export function joinReport(report: MemoryReport, assignment: BufferAssignment | undefined): ReportAllocation[] {
  const out: ReportAllocation[] = [];
  for (const space of report.spaces) {
    for (const rows of space.tables) {
      const n = out.length + 1;
      const found = assignment ? assignment.allocations.filter((a) => matches(a, space.color, rows)) : [];
      const allocation = found.length === 1 ? found[0] : undefined;
      const end = rows.reduce((m, r) => Math.max(m, r.offset + r.bytes), 0);
      out.push({
        n, space: space.name, color: space.color, bytes: allocation?.size ?? end,
        rows: rows.map((row) => ({ table: n, row, values: allocation ? valuesAt(allocation, row) : [] })),
        ...(allocation ? { allocation } : {}),
      });
    }
  }
  return out;
}

/** The kind of an allocation, as the buffer assignment flags it (`preallocated-temp`, `parameter`, …); `''` when it is not joined. */
export function kindOf(a: ReportAllocation): string {
  return a.allocation ? a.allocation.flags.join(', ') || 'temp' : '';
}

/** Allocations and bytes by kind, largest first; allocations not joined to the buffer assignment count as `unknown`. */
export function bytesByKind(tables: readonly ReportAllocation[]): { kind: string; allocations: number; bytes: number }[] {
  const by = new Map<string, { kind: string; allocations: number; bytes: number }>();
  for (const t of tables) {
    const kind = kindOf(t) || 'unknown';
    const e = by.get(kind) ?? { kind, allocations: 0, bytes: 0 };
    e.allocations += 1;
    e.bytes += t.bytes;
    by.set(kind, e);
  }
  return [...by.values()].sort((a, b) => b.bytes - a.bytes || a.kind.localeCompare(b.kind));
}
