import { describe, expect, it } from 'vitest';
import type { DocumentMeta, ModuleRef } from './document';
import { groupOf, layerGroups, pickLayerDocs } from './layer-groups';

const doc = (id: string, kind: DocumentMeta['kind'], extra: { captureId?: string; module?: ModuleRef } = {}): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt: 0, ...extra });
const mod = (groupId: string, name: string, number?: number, pass?: ModuleRef['pass']): ModuleRef => ({ groupId, name, path: `${name}.txt`, ...(number !== undefined ? { number } : {}), ...(pass ? { pass } : {}) });

describe('layerGroups', () => {
  it('gathers captures and modules where their first document was, layers top down, passes in order after them', () => {
    const m1 = (n?: number, pass?: ModuleRef['pass']) => mod('g1', 'jit_step', n, pass);
    const list = [
      doc('loose', 'hlo'),
      doc('p2', 'hlo', { module: m1(42, { index: 2, name: 'fusion', when: 'after' }) }),
      doc('opt', 'hlo-opt', { captureId: 'j1' }),
      doc('ba', 'buffer-assignment', { module: m1(42) }),
      doc('p1', 'hlo', { module: m1(42, { index: 1, name: 'algsimp', when: 'after' }) }),
      doc('before', 'hlo', { module: m1(42) }),
      doc('jx', 'jaxpr', { captureId: 'j1' }),
      doc('other', 'hlo-opt', { module: mod('g2', 'jit_eval') }),
    ];
    expect(layerGroups(list).map((g) => `${g.label}:${g.docs.map((d) => d.id).join(',')}`)).toEqual([
      'loose:loose',
      'module 0042 jit_step:before,ba,p1,p2',
      'capture #1:jx,opt',
      'jit_eval:other',
    ]);
  });

  it('keeps a group to its own documents, and a pass dump is never a layer', () => {
    const list = [doc('a', 'hlo-opt', { module: mod('g1', 'f') }), doc('b', 'hlo-opt', { module: mod('g2', 'g') }), doc('c', 'hlo', { module: mod('g2', 'g', undefined, { index: 0, name: 'x', when: 'after' }) })];
    expect(groupOf(list, list[1]!).map((d) => d.id)).toEqual(['b', 'c']);
    expect(pickLayerDocs(groupOf(list, list[1]!)).hlo?.id).toBe('b');
  });

  it('tells apart module groups of one name from different folders by their folder', () => {
    const at = (groupId: string, path: string): ModuleRef => ({ groupId, name: 'jit_mlp', number: 0, path });
    const list = [doc('a', 'hlo', { module: at('g1', 'mlp/module_0000.jit_mlp.before_optimizations.txt') }), doc('b', 'hlo', { module: at('g2', 'mlp-passes/module_0000.jit_mlp.before_optimizations.txt') }), doc('c', 'hlo', { module: mod('g3', 'jit_other', 1) })];
    expect(layerGroups(list).map((g) => g.label)).toEqual(['module 0000 jit_mlp · mlp', 'module 0000 jit_mlp · mlp-passes', 'module 0001 jit_other']);
  });

  it('prefers optimized HLO, or the document asked for', () => {
    const list = [doc('h', 'hlo'), doc('o', 'hlo-opt'), doc('j', 'jaxpr')];
    expect(pickLayerDocs(list).hlo?.id).toBe('o');
    expect(pickLayerDocs(list, 'h').hlo?.id).toBe('h');
  });
});
