import { describe, expect, it } from 'vitest';
import type { CaptureEntry, DocumentMeta } from '@seam/shared/model';
import { defaultPair, diffableDocs, pairProblem } from './diff-docs';

const doc = (id: string, kind: DocumentMeta['kind'], over: Partial<DocumentMeta> = {}): DocumentMeta => ({ id, title: `${id}.txt`, kind, bytes: 1, sha256: id, createdAt: 0, ...over });
const capture = (id: string, entry: string): CaptureEntry => ({ id, status: 'done', attempt: 1, entry, args: [], capture: [], requestedBy: 'Ada', createdAt: 0, updatedAt: 0, documents: [] });

describe('the documents Compare offers', () => {
  const list = [
    doc('c1-j', 'jaxpr', { captureId: 'c1' }), doc('c1-h', 'hlo-opt', { captureId: 'c1' }),
    doc('c2-h', 'hlo-opt', { captureId: 'c2' }), doc('c2-t', 'trace', { captureId: 'c2' }),
    doc('c3-h', 'hlo-opt', { captureId: 'c3' }),
    doc('note', 'text'),
  ];
  const caps = [capture('c1', 'attention'), capture('c2', 'mlp'), capture('c3', 'attention')];

  it('lists HLO documents only', () => {
    expect(diffableDocs(list).map((d) => d.id)).toEqual(['c1-h', 'c2-h', 'c3-h']);
  });

  it("opens on the open document's earlier version, else the room's last version pair, else the last two optimized HLO", () => {
    expect(defaultPair(list, caps, 'c3-h')).toEqual({ a: 'c1-h', b: 'c3-h' });
    expect(defaultPair(list, caps, 'note')).toEqual({ a: 'c1-h', b: 'c3-h' });
    expect(defaultPair(list, [], null)).toEqual({ a: 'c2-h', b: 'c3-h' });
    expect(defaultPair([doc('x', 'hlo'), doc('y', 'hlo-opt')], [], null)).toEqual({ a: 'x', b: 'y' });
    expect(defaultPair([doc('y', 'hlo-opt'), doc('n', 'text')], [], null)).toBeNull();
  });

  it('names what is wrong with a pair: an unknown id, a document that is not HLO, the same one twice', () => {
    expect(pairProblem(list, 'c1-h', 'c3-h')).toBeNull();
    expect(pairProblem(list, 'c1-h', 'c1-h')).toBe('Pick two different documents to compare.');
    expect(pairProblem(list, 'c1-h', '<script>')).toBe('This room has no document "<script>".');
    expect(pairProblem(list, 'c2-t', 'c1-h')).toBe('c2-t.txt is trace, not HLO: a diff compares two HLO modules (before or after optimization).');
    expect(pairProblem(list, 'c1-h', 'x'.repeat(5000))).toBe(`This room has no document "${'x'.repeat(80)}".`);
  });
});
