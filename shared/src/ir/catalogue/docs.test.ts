import { describe, expect, it } from 'vitest';
import type { DocumentMeta, ModuleRef } from '../../model/document';
import { catalogueDocsOf, programGroups } from './docs';

const doc = (id: string, kind: DocumentMeta['kind'], extra: { captureId?: string; module?: ModuleRef } = {}): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt: 0, ...extra });
const mod = (pass?: ModuleRef['pass']): ModuleRef => ({ groupId: 'g1', name: 'jit_step', number: 7, path: 'm.txt', ...(pass ? { pass } : {}) });

describe('catalogueDocsOf', () => {
  it('takes one document per layer, HLO before and optimized HLO both, and never a pass dump', () => {
    const group = [
      doc('before', 'hlo', { module: mod() }),
      doc('opt', 'hlo-opt', { module: mod() }),
      doc('pass', 'hlo', { module: mod({ index: 3, name: 'fusion', when: 'after' }) }),
      doc('ba', 'buffer-assignment', { module: mod() }),
    ];
    expect(Object.fromEntries(Object.entries(catalogueDocsOf(group)).map(([l, d]) => [l, d.id]))).toEqual({ hlo: 'before', 'hlo-opt': 'opt' });
  });
});

describe('programGroups', () => {
  it('offers the groups that hold a program layer, not traces or notes alone', () => {
    const list = [doc('jx', 'jaxpr', { captureId: 'c1' }), doc('tr', 'trace', { captureId: 'c1' }), doc('t', 'trace'), doc('txt', 'text'), doc('opt', 'hlo-opt', { module: mod() })];
    expect(programGroups(list).map((g) => g.label)).toEqual(['capture #1', 'module 0007 jit_step']);
  });
});
