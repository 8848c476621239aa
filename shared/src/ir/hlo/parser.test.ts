import { describe, expect, it } from 'vitest';
import type { HloInstruction } from './ast';
import { parseHlo } from './parser';

function only(text: string): HloInstruction[] {
  const r = parseHlo(text);
  expect(r.diagnostics).toEqual([]);
  return r.ast.modules.flatMap((m) => m.computations.flatMap((c) => c.instructions));
}

describe('parseHlo', () => {
  it('reads shapes with layouts, tiling and memory spaces', () => {
    const [p, q] = only(`HloModule m
ENTRY e {
  p = bf16[8192,128]{1,0:T(8,128)(2,1)S(1)} parameter(0)
  ROOT q = f32[2,3] {1,0} negate(f32[2,3]{1,0} p)
}`);
    expect(p?.type).toEqual({ dtype: 'bf16', dims: [8192, 128], memorySpace: 1 });
    expect(p?.typeText).toBe('bf16[8192,128]{1,0:T(8,128)(2,1)S(1)}');
    expect(p?.bytes).toBe(2_097_152);
    expect(q?.operands).toEqual(['p']);
    expect(q?.isRoot).toBe(true);
  });

  it('reads tuples with index comments, tokens and bounded dynamic dims', () => {
    const [t, d] = only(`ENTRY e {
  t = (f32[2]{0}, /*index=1*/s32[], token[]) parameter(0)
  d = f32[<=8,?]{1,0} parameter(1)
}`);
    expect(t?.type).toEqual({ tuple: [{ dtype: 'f32', dims: [2] }, { dtype: 's32', dims: [] }, { dtype: 'token', dims: [] }] });
    expect(t?.bytes).toBe(12);
    expect(d?.type).toEqual({ dtype: 'f32', dims: [8, -1] });
  });

  it('decodes the attributes the analysis needs and skips the rest', () => {
    const ins = only(`HloModule m, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}
%fc (a: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%a)
}
ENTRY %e (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0), sharding={devices=[2,1]0,1}, frontend_attributes={_xla="a, b"}
  %d = f32[4,4]{1,0} dot(%p, %p), lhs_batch_dims={}, lhs_contracting_dims={0}, rhs_contracting_dims={0}, backend_config={"x":{"y":[1,2]}}
  %w = f32[4]{0} custom-call(%p), custom_call_target="foo\\"bar", window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT %f = f32[4]{0} fusion(%w), kind=kLoop, calls=%fc, metadata={op_type="neg" op_name="jit(f)/neg" source_file="/x/m.py" source_line=12}
}`);
    const byName = new Map(ins.map((i) => [i.name, i]));
    expect(byName.get('d')?.attrs?.dot).toEqual({ lhsBatch: [], rhsBatch: [], lhsContracting: [0], rhsContracting: [0] });
    expect(byName.get('f')).toMatchObject({ opcode: 'fusion', attrs: { fusionKind: 'kLoop', calls: ['fc'] }, operands: ['w'] });
    expect(byName.get('f')?.metadata).toEqual({ opType: 'neg', opName: 'jit(f)/neg', sourceFile: '/x/m.py', sourceLine: 12 });
    expect(byName.get('w')?.operands).toEqual(['p']);
  });

  it('resolves the stack-frame tables newer XLA prints after the header', () => {
    const r = parseHlo(`HloModule jit_f, is_scheduled=true

FileNames
1 "/tmp/model.py"

FunctionNames
1 "<module>"
2 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=5 end_line=5 column=4 end_column=27}
2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=11 end_column=47}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}

ENTRY %main (x: f32[2]) -> f32[2] {
  ROOT %x = f32[2]{0} parameter(0), metadata={op_name="x" stack_frame_id=2}
}`);
    expect(r.diagnostics).toEqual([]);
    const m = r.ast.modules[0];
    expect(m?.stackFrames.fileNames.get(1)).toBe('/tmp/model.py');
    expect(m?.stackFrames.fileLocations.get(2)).toEqual({ fileNameId: 1, functionNameId: 2, line: 3, column: 11 });
    expect(m?.stackFrames.frames.get(2)).toEqual({ fileLocationId: 2, parentFrameId: 1 });
    expect(m?.computations[0]?.instructions[0]?.metadata?.stackFrameId).toBe(2);
  });

  it('splits several modules and treats CHECK lines as comments', () => {
    const r = parseHlo(`// RUN: hlo-opt %s | FileCheck %s
  HloModule a
  // CHECK: ENTRY
  ENTRY e { ROOT c = f32[] constant(1) }
// -----
HloModule b:
ENTRY e {
  /* block */ ROOT c = (f32[], s32[]) constant((1, 2))
}`);
    expect(r.diagnostics).toEqual([]);
    expect(r.ast.modules.map((m) => m.name)).toEqual(['a', 'b']);
    expect(r.ast.modules[1]?.computations[0]?.instructions[0]?.opcode).toBe('constant');
  });

  it('reads instructions whose shape is inferred and operands that are nested instructions', () => {
    const [c, s] = only(`ENTRY e {
  c = compare(p0, ten), direction=LT
  ROOT s = f32[10] sqrt(f32[10] broadcast(f32[] parameter(0)))
}`);
    expect(c).toMatchObject({ opcode: 'compare', operands: ['p0', 'ten'], typeText: '' });
    expect(s).toMatchObject({ opcode: 'sqrt', operands: [] });
  });

  it('reads the same operands however they are spaced, typed or broken off', () => {
    const lists = ['(%a, %b)', '(%a,%b)', '(%a, f32[2]{0} %b)', '( %a , %b )', '(%a, %b /*c*/)', '(%a, %b, nested(%c))'];
    const instructions = only(`ENTRY e {\n${lists.map((l, i) => `  %r${i} = f32[2]{0} add${l}`).join('\n')}\n}`);
    expect(instructions.map((i) => i.operands)).toEqual(lists.map(() => ['a', 'b']));
    const broken = parseHlo('ENTRY e {\n  ROOT %r = f32[2]{0} add(%a, %b');
    expect(broken.diagnostics[0]?.message).toMatch(/operand list is not closed/);
    expect(broken.ast.modules[0]?.computations[0]?.instructions[0]?.operands).toEqual(['a', 'b']);
  });

  it('reports a broken line with its offset and keeps reading the next ones', () => {
    const text = `ENTRY e {
  a = f32[2]{0} parameter(0)
  b = f32[2]{0} = oops
  ROOT c = f32[2]{0} negate(a)
}`;
    const r = parseHlo(text);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0];
    expect(d?.severity).toBe('error');
    expect(text.slice(0, d?.from).split('\n')).toHaveLength(3);
    expect(r.ast.modules[0]?.computations[0]?.instructions.map((i) => i.name)).toEqual(['a', 'c']);
  });

  it('flags an unterminated comment, a second ROOT and a repeated parameter number', () => {
    expect(parseHlo('HloModule m\nENTRY e {\n/* never closed\n ROOT c = f32[] constant(1)\n}').diagnostics[0]?.message).toMatch(/unterminated/);
    expect(parseHlo('ENTRY e {\n ROOT a = f32[] constant(1)\n ROOT b = f32[] constant(2)\n}').diagnostics[0]?.message).toMatch(/second ROOT/);
    expect(parseHlo('ENTRY e {\n a = f32[] parameter(0)\n b = f32[] parameter(0)\n}').diagnostics[0]?.message).toMatch(/parameter number 0/);
  });

  it('reads an HloModuleProto in protobuf text format', () => {
    const r = parseHlo(`hlo_module {
  name: "main"
  entry_computation_name: "main.4"
  computations {
    name: "main.4"
    instructions { name: "Arg_0.1" opcode: "parameter" shape { element_type: F32 dimensions: 2 } id: 1 }
    instructions { name: "neg.2" opcode: "negate" shape { element_type: F32 dimensions: 2 } operand_ids: 1 id: 2 }
    root_id: 2
  }
}`);
    expect(r.diagnostics).toEqual([]);
    const c = r.ast.modules[0]?.computations[0];
    expect(c?.isEntry).toBe(true);
    expect(c?.instructions[1]).toMatchObject({ name: 'neg.2', opcode: 'negate', operands: ['Arg_0.1'], bytes: 8, isRoot: true });
  });
});
