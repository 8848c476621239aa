import { describe, expect, it } from 'vitest';
import type { DocumentMeta, ModuleRef } from '@seam/shared/model';
import { listGroups, passLabel, titleInGroup } from './document-groups';

const doc = (id: string, kind: DocumentMeta['kind'], extra: { captureId?: string; module?: ModuleRef; title?: string } = {}): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt: 0, ...extra });
const pass = (index: number, name: string, when: 'before' | 'after', pipeline?: string): ModuleRef['pass'] => ({ index, name, when, ...(pipeline ? { pipeline } : {}) });
const m = (p?: ModuleRef['pass']): { module: ModuleRef } => ({ module: { groupId: 'g8', name: 'jit_mlp', number: 8, path: 'x', ...(p ? { pass: p } : {}) } });

describe('listGroups', () => {
  it('lists captures and modules once each where they first appear, with pass dumps set apart in pass order', () => {
    const list = [
      doc('a', 'hlo'),
      doc('p2', 'hlo', m(pass(2, 'fusion', 'after'))),
      doc('opt', 'hlo-opt', { captureId: 'j1' }),
      doc('mo', 'hlo-opt', m()),
      doc('p1', 'hlo', m(pass(1, 'algsimp', 'after'))),
      doc('jx', 'jaxpr', { captureId: 'j1' }),
      doc('mb', 'hlo', m()),
    ];
    expect(listGroups(list).map((g) => `${g.kind} ${g.label}: ${g.docs.map((d) => d.id).join(',')} | ${g.passes.map((d) => d.id).join(',')}`)).toEqual([
      'single a: a | ',
      'module module 0008 jit_mlp: mb,mo | p1,p2',
      'capture capture #1: jx,opt | ',
    ]);
  });
});

describe('titleInGroup', () => {
  it("drops the module prefix XLA's file names repeat, and keeps other titles whole", () => {
    expect(titleInGroup(doc('x', 'hlo-opt', { ...m(), title: 'dump/xla/module_0008.jit_mlp.cpu_after_optimizations.txt' }))).toBe('after optimizations (cpu)');
    expect(titleInGroup(doc('x', 'hlo', { ...m(), title: 'dump/xla/module_0008.jit_mlp.before_optimizations.txt' }))).toBe('before optimizations');
    expect(titleInGroup(doc('x', 'buffer-assignment', { ...m(), title: 'module_0008.jit_mlp.cpu_after_optimizations-buffer-assignment.txt' }))).toBe('buffer assignment');
    expect(titleInGroup(doc('x', 'text', { ...m(), title: 'module_0008.jit_mlp.cpu_after_optimizations-buffer-assignment-values.txt' }))).toBe('buffer assignment: values');
    expect(titleInGroup(doc('x', 'text', { ...m(), title: 'module_0008.jit_mlp.gpu_after_optimizations-live-range.txt' }))).toBe('live ranges');
    expect(titleInGroup(doc('x', 'memory-report', { ...m(), title: 'module_0008.jit_mlp.cpu_after_optimizations-memory-usage-report.txt' }))).toBe('memory-usage report');
    expect(titleInGroup(doc('x', 'jaxpr', { ...m(), title: 'dump/jax/jax_000004_mlp.jaxpr.txt' }))).toBe('jax_000004_mlp.jaxpr.txt');
    expect(titleInGroup(doc('x', 'stablehlo', { ...m(), title: 'dump/xla/module_0008.jit_mlp/module.mlir' }))).toBe('module.mlir');
    // Another module's prefix, or nothing after it, stays.
    expect(titleInGroup(doc('x', 'hlo', { ...m(), title: 'module_0009.jit_other.before_optimizations.txt' }))).toBe('module_0009.jit_other.before_optimizations.txt');
    expect(titleInGroup(doc('x', 'hlo', { ...m(), title: 'dumps/' }))).toBe('dumps/');
    expect(titleInGroup(doc('x', 'hlo', { captureId: 'j', title: 'module_0008.jit_mlp.txt' }))).toBe('module_0008.jit_mlp.txt');
  });
});

describe('passLabel', () => {
  it('reads a pass dump as its number, when, pass and pipeline', () => {
    expect(passLabel(doc('x', 'hlo', m(pass(5, 'call-inliner', 'after', 'HLO_passes_through_layout_assignment'))))).toBe('0005 call-inliner · HLO_passes_through_layout_assignment');
    expect(passLabel(doc('y', 'hlo', m(pass(12, 'algsimp', 'before'))))).toBe('0012 before algsimp');
    expect(passLabel(doc('z', 'hlo', m()))).toBe('z');
  });
});
