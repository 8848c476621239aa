import { describe, expect, it } from 'vitest';
import type { HloComputation } from './ast';
import { indexHlo } from './index';
import { parseHlo } from './parser';

const fused = `%fused_add (p0: f32[4], p1: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[4]{0} parameter(1)
  ROOT %add.1 = f32[4]{0} add(%p0, %p1), metadata={op_name="jit(f)/add" stack_frame_id=1}
}
`;
const entry = `ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %fusion.7 = f32[4]{0} fusion(%x, %x), kind=kLoop, calls=%fused_add
}
`;
const frames = `FileNames
1 "/src/model.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=9 end_line=9 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=0}
`;

describe('indexing HLO while it is parsed', () => {
  it('hands each computation to a sink as it is read and keeps none of them in the tree', () => {
    const seen: string[] = [];
    const ends: number[] = [];
    const r = parseHlo(`HloModule m\n${fused}${entry}`, {
      computation: (c: HloComputation) => seen.push(`${c.name}:${c.instructions.length}`),
      module: (_m, count) => ends.push(count),
    });
    expect(seen).toEqual(['fused_add:3', 'main:2']);
    expect(ends).toEqual([2]);
    expect(r.ast.modules[0]?.computations).toEqual([]);
    expect(parseHlo(`HloModule m\n${fused}${entry}`).ast.modules[0]?.computations).toHaveLength(2);
  });

  it('builds operand names only for the opcodes a sink asks for, and still reports bad operand lists', () => {
    const operands: string[] = [];
    const bad = 'ENTRY %e {\n  %y = f32[4]{0} negate(%x ], %z)\n}\n';
    const r = parseHlo(`HloModule m\n${fused}${entry}${bad}`, {
      operandsOf: new Set(['fusion']),
      computation: (c: HloComputation) => operands.push(...c.instructions.map((i) => `${i.name}(${i.operands.join(',')})`)),
      module: () => undefined,
    });
    expect(operands).toEqual(['p0()', 'p1()', 'add.1()', 'x()', 'fusion.7(x,x)', 'y()']);
    expect(r.diagnostics).toEqual(parseHlo(`HloModule m\n${fused}${entry}${bad}`).diagnostics);
    expect(r.diagnostics[0]?.message).toMatch(/expected ',' or '\)' in operands/);
  });

  it('hands each instruction to a sink as it is read, and the computation after them with none kept', () => {
    const seen: string[] = [];
    parseHlo(`HloModule m\n${fused}${entry}`, {
      operandsOf: new Set(['fusion']),
      wholeEntry: true,
      instruction: (ins, scope) => seen.push(`${scope.name}/${ins.name}(${ins.operands.join(',')})`),
      computation: (c: HloComputation) => seen.push(`${c.name}:${c.instructions.length}`),
      module: () => undefined,
    });
    expect(seen).toEqual(['fused_add/p0()', 'fused_add/p1()', 'fused_add/add.1()', 'fused_add:0', 'main:2']);
  });

  it('hands the entry over with every operand named when a sink wants it whole', () => {
    const operands: string[] = [];
    parseHlo(`HloModule m\n${fused}${entry}`, {
      operandsOf: new Set(),
      wholeEntry: true,
      computation: (c: HloComputation) => operands.push(...c.instructions.map((i) => `${i.name}(${i.operands.join(',')})`)),
      module: () => undefined,
    });
    expect(operands).toEqual(['p0()', 'p1()', 'add.1()', 'x()', 'fusion.7(x,x)']);
  });

  it('gives fused instructions their fusion whether the fusion is printed after or before them', () => {
    for (const text of [`HloModule m\n${fused}${entry}`, `HloModule m\n${entry}${fused}`]) {
      const { index } = indexHlo(text, 'hlo-opt');
      expect(index.keys.find((k) => k.name === 'add.1')?.fusion).toBe('fusion.7');
      expect(index.keys.find((k) => k.name === 'x')?.fusion).toBeUndefined();
      expect(index.fusions).toMatchObject([{ name: 'fusion.7', calls: 'fused_add', fusedOps: 1, inputBytes: 32, outputBytes: 16 }]);
      const children = index.outline[0]?.children ?? [];
      expect(children.find((c) => c.name === 'fused_add')).toMatchObject({ kind: 'fusion', fusionKind: 'kLoop', opCount: 3 });
    }
  });

  it('resolves sources from stack frames printed before or after the computations', () => {
    for (const text of [`HloModule m\n${frames}${fused}${entry}`, `HloModule m\n${fused}${entry}${frames}`]) {
      const { index, diagnostics } = indexHlo(text, 'hlo-opt');
      expect(diagnostics).toEqual([]);
      expect(index.keys.find((k) => k.name === 'add.1')?.source).toEqual({ opName: 'jit(f)/add', file: '/src/model.py', line: 9, column: 1 });
    }
  });

  it('finds spills across a while loop whose body is read again at the end of the module', () => {
    const text = `HloModule m
%body (t: (f32[1024], s32[])) -> (f32[1024], s32[]) {
  %t = (f32[1024]{0}, s32[]) parameter(0)
  %v = f32[1024]{0} get-tuple-element(%t), index=0
  %i = s32[] get-tuple-element(%t), index=1
  %n = f32[1024]{0} negate(%v)
  ROOT %r = (f32[1024]{0}, s32[]) tuple(%n, %i)
}
%cond (t: (f32[1024], s32[])) -> pred[] {
  %t = (f32[1024]{0}, s32[]) parameter(0)
  ROOT %c = pred[] constant(true)
}
ENTRY %main (x: f32[1024]) -> f32[1024] {
  %x = f32[1024]{0} parameter(0)
  %e = f32[1024]{0} exponential(%x)
  %z = s32[] constant(0)
  %init = (f32[1024]{0}, s32[]) tuple(%e, %z)
  %w = (f32[1024]{0}, s32[]) while(%init), condition=%cond, body=%body
  %out = f32[1024]{0} get-tuple-element(%w), index=0
  ROOT %l = f32[1024]{0} log(%out)
}
`;
    const { index } = indexHlo(text, 'hlo-opt');
    const byProducer = new Map(index.spills.map((s) => [s.producer, s.consumers]));
    expect(byProducer.get('e')).toEqual(['n']);
    // A kernel reading its own loop-carried result is not a spill to itself.
    expect(byProducer.get('n')).toEqual(['l']);
  });
});
