import { describe, expect, it } from 'vitest';
import type { DocumentMeta } from '@seam/shared/model';
import { groupDocuments } from './capture-groups';

const doc = (id: string, kind: DocumentMeta['kind'], captureId?: string): DocumentMeta => ({ id, title: id, kind, bytes: 1, sha256: id, createdAt: 0, ...(captureId ? { captureId } : {}) });

describe('groupDocuments', () => {
  it('gathers the dumps of one capture where its first dump was, in layer order, and numbers the groups', () => {
    const list = [doc('a', 'hlo'), doc('opt', 'hlo-opt', 'j1'), doc('jx', 'jaxpr', 'j1'), doc('b', 'text'), doc('sh', 'stablehlo', 'j2'), doc('sh1', 'stablehlo', 'j1')];
    const groups = groupDocuments(list);
    expect(groups.map((g) => (g.kind === 'single' ? g.doc.id : `${g.label}:${g.docs.map((d) => d.id).join(',')}`))).toEqual([
      'a',
      'capture #1:jx,sh1,opt',
      'b',
      'capture #2:sh',
    ]);
  });

  it('leaves a list without captures as it is', () => {
    const list = [doc('x', 'hlo'), doc('y', 'jaxpr')];
    expect(groupDocuments(list)).toEqual(list.map((d) => ({ kind: 'single', doc: d })));
  });
});
