import { describe, expect, it } from 'vitest';
import { analyze } from '@seam/shared/ir';
import { buildLookup } from '../editor/ir/lookup';
import { dotFlops, hloFacts, operandNames } from './hlo-facts';
import { hloCandidates, hloModuleName } from './hlo-target';
import type { DocumentMeta } from '@seam/shared/model';
import text from '../../../../test/fixtures/gate/attention-cpu/hlo-opt.txt?raw';
import opsJson from '../../../../test/fixtures/gate/attention-cpu/ops.json';

const ops = opsJson as { name: string; module: string }[];
const lookup = buildLookup(analyze(text, 'hlo-opt').index);

describe('what the optimized HLO says of a traced op', () => {
  it('finds every op the real CPU attention trace names, at its definition line', () => {
    for (const o of ops) {
      const f = hloFacts(lookup, text, o.name);
      expect(f, o.name).toBeDefined();
      const lineText = text.split('\n')[f!.line - 1]!;
      expect(lineText).toContain(`%${o.name} = `);
      expect(text.slice(f!.from, f!.to)).toBe(lineText.trimStart());
    }
  });

  it('counts a dot as its output and operands, and 2·M·N·K FLOPs', () => {
    // %dot_general.2 = f32[8192,8192] dot(%wrapped_convert, %wrapped_convert.1) of two f32[8192,128].
    const f = hloFacts(lookup, text, 'dot_general.2')!;
    expect(f.bytes).toBe(8192 * 8192 * 4 + 2 * 8192 * 128 * 4);
    expect(f.flops).toBe(2 * 8192 * 8192 * 128);
  });

  it('counts a fusion as the analysis counts its inputs and output', () => {
    const fusion = lookup.fusionByName.get('convert_exponential_fusion')!;
    const f = hloFacts(lookup, text, 'convert_exponential_fusion')!;
    expect(f.bytes).toBe(fusion.inputBytes + fusion.outputBytes);
    expect(f.bytes).toBeGreaterThan(8192 * 8192 * 4);
    expect(f.flops).toBeUndefined();
  });

  it('knows nothing of an op the dump does not hold', () => {
    expect(hloFacts(lookup, text, 'no_such_fusion.9')).toBeUndefined();
  });

  it('reads operands at the first depth of the opcode parentheses only', () => {
    expect(operandNames('%f = f32[4]{0} fusion(%a, %b.1), kind=kLoop, calls=%c')).toEqual(['a', 'b.1']);
    expect(operandNames('%t = (f32[2], f32[2]) tuple(f32[2]{0} %x, f32[2]{0} %y-z)')).toEqual(['x', 'y-z']);
    expect(operandNames('no assignment here')).toEqual([]);
  });

  it('counts batch dims once and contracting dims as K', () => {
    expect(dotFlops({ name: 'd', scope: 's', line: 1, from: 0, to: 1, einsum: '', lhs: [4, 16, 32], rhs: [4, 32, 8], lhsBatch: [0], rhsBatch: [0], lhsContracting: [2], rhsContracting: [1] })).toBe(2 * 4 * 16 * 32 * 8);
  });
});

describe('which optimized HLO a trace links to', () => {
  const doc = (id: string, kind: DocumentMeta['kind'], createdAt: number, captureId?: string): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt, ...(captureId ? { captureId } : {}) });

  it('reads the module name of a dump', () => {
    expect(hloModuleName(text)).toBe('jit_attention');
    expect(hloModuleName('module @jit_f {')).toBeNull();
  });

  it("prefers the trace's own capture, else every optimized HLO, newest first", () => {
    const docs = [doc('old', 'hlo-opt', 1), doc('mine', 'hlo-opt', 2, 'c1'), doc('new', 'hlo-opt', 3), doc('h', 'hlo', 4, 'c1'), doc('t', 'trace', 5, 'c1')];
    expect(hloCandidates(docs[4]!, docs).map((d) => d.id)).toEqual(['mine']);
    expect(hloCandidates(doc('u', 'trace', 6), docs).map((d) => d.id)).toEqual(['new', 'mine', 'old']);
    expect(hloCandidates(doc('u', 'trace', 6, 'c9'), docs).map((d) => d.id)).toEqual(['new', 'mine', 'old']);
  });
});

