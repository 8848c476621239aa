import { describe, expect, it } from 'vitest';
import { parseBufferAssignment, parseMemoryReport } from '@seam/shared/ir';
import { bytesByKind, joinReport, kindOf, shapeWithoutLayout } from './report-join';

import reportText from '../../../../../test/fixtures/xla-dump/mlp/module_0000.jit_mlp.cpu_after_optimizations-memory-usage-report.txt?raw';
import assignmentText from '../../../../../test/fixtures/xla-dump/mlp/module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt?raw';

/** XLA:CPU's dump of the MLP (test/fixtures/xla-dump/README.md). */
const report = parseMemoryReport(reportText).ast;
const assignment = parseBufferAssignment(assignmentText).ast;

describe('a memory-usage report joined to its buffer assignment', () => {
  const tables = joinReport(report, assignment);

  it('joins each table to the one allocation holding its rows, and leaves look-alike constants unjoined', () => {
    expect(tables.map((t) => t.allocation?.index ?? null)).toEqual([0, 7, 1, 2, 3, null, null, null]);
    expect(tables.map((t) => t.bytes)).toEqual([16384, 8832, 4096, 256, 64, 4, 4, 4]);
    expect(tables[1]?.rows.map((r) => [r.row.offset, r.values.map((v) => v.name)])).toEqual([[0, ['wrapped_convert.1']], [8192, ['wrapped_convert']], [8704, ['ynn_fusion']]]);
    expect(tables[5]?.rows[0]?.values).toEqual([]);
    expect(tables.map(kindOf)).toEqual(['parameter', 'preallocated-temp', 'parameter', 'parameter', 'output, maybe-live-out', '', '', '']);
  });

  it('sums bytes by kind, counting what it could not join as unknown', () => {
    expect(bytesByKind(tables)).toEqual([
      { kind: 'parameter', allocations: 3, bytes: 16384 + 4096 + 256 },
      { kind: 'preallocated-temp', allocations: 1, bytes: 8832 },
      { kind: 'output, maybe-live-out', allocations: 1, bytes: 64 },
      { kind: 'unknown', allocations: 3, bytes: 12 },
    ]);
  });

  it('without a buffer assignment, sizes the tables from their rows and names no value', () => {
    const alone = joinReport(report, undefined);
    expect(alone.map((t) => t.bytes)).toEqual([16384, 8832, 4096, 256, 64, 4, 4, 4]);
    expect(alone.every((t) => t.allocation === undefined && t.rows.every((r) => r.values.length === 0))).toBe(true);
  });

  it('joins nothing from a buffer assignment of another module', () => {
    const other = parseBufferAssignment('BufferAssignment:\nallocation 0: size 16384, parameter 0, shape |f32[64,64]| at ShapeIndex {}:\n value: <1 p @0> (size=16384,offset=0): f32[64,64]{1,0}\n').ast;
    expect(joinReport(report, other).some((t) => t.allocation !== undefined)).toBe(false);
  });

  it('reads a shape without its layout', () => {
    expect(shapeWithoutLayout('f32[32,64]{1,0}')).toBe('f32[32,64]');
    expect(shapeWithoutLayout('f32[]')).toBe('f32[]');
  });
});
