import { describe, expect, it } from 'vitest';
import type { DocumentMeta, ModuleRef } from '@seam/shared/model';
import { completeLayers, LOOSE_LABEL, missingNote, paneLayers, splitPanes, viewGroup } from './view-group';

const doc = (id: string, kind: DocumentMeta['kind'], extra: { captureId?: string; module?: ModuleRef } = {}): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt: 0, ...extra });
const mod = (groupId: string, name: string, number: number, pass?: ModuleRef['pass']): ModuleRef => ({ groupId, name, number, path: `${name}.txt`, ...(pass ? { pass } : {}) });
const m8 = (pass?: ModuleRef['pass']) => ({ module: mod('g8', 'jit_mlp', 8, pass) });
const m12 = { module: mod('g12', 'jit_attention', 12) };

/** A room of two dump-folder modules (the first without StableHLO), one capture, and three loose uploads. */
const ROOM = [
  doc('loose-j', 'jaxpr'),
  doc('a-j', 'jaxpr', m12),
  doc('a-s', 'stablehlo', m12),
  doc('a-h', 'hlo', m12),
  doc('a-o', 'hlo-opt', m12),
  doc('m-j', 'jaxpr', m8()),
  doc('m-h', 'hlo', m8()),
  doc('m-o', 'hlo-opt', m8()),
  doc('m-p1', 'hlo', m8({ index: 1, name: 'algsimp', when: 'after' })),
  doc('m-ba', 'buffer-assignment', m8()),
  doc('c-j', 'jaxpr', { captureId: 'job1' }),
  doc('c-s', 'stablehlo', { captureId: 'job1' }),
  doc('c-o', 'hlo-opt', { captureId: 'job1' }),
  doc('loose-s', 'stablehlo'),
  doc('loose-o', 'hlo-opt'),
];

describe('viewGroup', () => {
  it("pairs a module's layers within that module, named as the list names it", () => {
    const g = viewGroup(ROOM, 'a-h')!;
    expect(g.label).toBe('module 0012 jit_attention');
    expect(completeLayers(g)).toEqual({ jaxpr: 'a-j', stablehlo: 'a-s', hlo: 'a-h' });
    expect(completeLayers(viewGroup(ROOM, 'a-j'))).toEqual({ jaxpr: 'a-j', stablehlo: 'a-s', hlo: 'a-o' });
  });

  it("says which layer a group lacks instead of borrowing another group's", () => {
    const g = viewGroup(ROOM, 'm-o')!;
    expect(g.missing).toEqual(['stablehlo']);
    expect(completeLayers(g)).toBeNull();
    expect(missingNote(g)).toBe('module 0008 jit_mlp has no StableHLO');
    expect(missingNote(viewGroup([doc('x', 'hlo-opt', m12)], 'x')!)).toBe('module 0012 jit_attention has no jaxpr and no StableHLO');
  });

  it('numbers captures as the list does, and pools loose documents together', () => {
    const c = viewGroup(ROOM, 'c-s')!;
    expect(c.label).toBe('capture #1');
    expect(completeLayers(c)).toEqual({ jaxpr: 'c-j', stablehlo: 'c-s', hlo: 'c-o' });
    const loose = viewGroup(ROOM, 'loose-s')!;
    expect(loose.label).toBe(LOOSE_LABEL);
    expect(completeLayers(loose)).toEqual({ jaxpr: 'loose-j', stablehlo: 'loose-s', hlo: 'loose-o' });
  });

  it('is null for a document not listed (the notes, nothing open)', () => {
    expect(viewGroup(ROOM, 'notes')).toBeNull();
    expect(viewGroup(ROOM, null)).toBeNull();
    expect(completeLayers(null)).toBeNull();
  });
});

describe('splitPanes', () => {
  it("opens the group's layers top down, optimized HLO preferred, with a non-layer document first", () => {
    expect(splitPanes(viewGroup(ROOM, 'a-j')!, 'a-j', 3)).toEqual(['a-j', 'a-s', 'a-o']);
    expect(splitPanes(viewGroup(ROOM, 'm-ba')!, 'm-ba', 3)).toEqual(['m-ba', 'm-j', 'm-o']);
  });

  it('never fills a pane from another group', () => {
    const lone = [doc('x', 'buffer-assignment', m12), doc('y', 'hlo-opt', m8())];
    expect(splitPanes(viewGroup(lone, 'x')!, 'x', 3)).toEqual(['x']);
    const ba = [doc('x', 'buffer-assignment', m12), doc('r', 'memory-report', m12), doc('p', 'hlo', { module: mod('g12', 'jit_attention', 12, { index: 0, name: 'a', when: 'after' }) })];
    expect(splitPanes(viewGroup(ba, 'x')!, 'x', 3)).toEqual(['x', 'r']);
  });
});

describe('paneLayers', () => {
  const metas = (...ids: string[]) => ids.map((id) => ROOM.find((d) => d.id === id)!);

  it('takes the panes when they show the three layers of the group', () => {
    expect(paneLayers(viewGroup(ROOM, 'a-j'), metas('a-j', 'a-s', 'a-h'))).toEqual({ jaxpr: 'a-j', stablehlo: 'a-s', hlo: 'a-h' });
  });

  it('refuses panes that mix groups or lack a layer', () => {
    expect(paneLayers(viewGroup(ROOM, 'a-j'), metas('a-j', 'c-s', 'a-o'))).toBeNull();
    expect(paneLayers(viewGroup(ROOM, 'a-j'), metas('a-j', 'a-o'))).toBeNull();
    expect(paneLayers(null, metas('a-j', 'a-s', 'a-o'))).toBeNull();
  });
});
