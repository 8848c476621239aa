import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { annotationsMap, annotationToVersion1YMap, annotationToYMap, type Annotation } from '@seam/shared/model';
import { ItemBudget, ItemVerdict } from './item-budget';
import { MalformedUpdate } from './update-headers';

/** An update that sets `n` keys of one map: `n` structs. */
function mapEntries(n: number): Uint8Array {
  const doc = new Y.Doc();
  doc.transact(() => {
    for (let i = 0; i < n; i += 1) doc.getMap('annotations').set(`k${i}`, i);
  });
  return Y.encodeStateAsUpdate(doc);
}

describe('ItemBudget', () => {
  it('counts structs and deleted ranges, refuses an update over the per-update limit, and charges the rate', () => {
    let now = 0;
    const budget = new ItemBudget({ itemsPerUpdate: 100, itemsPerSecond: 50, itemsBurst: 150 }, () => now);
    expect(budget.charge(mapEntries(100))).toBe(ItemVerdict.ok);
    expect(budget.charge(mapEntries(101))).toBe(ItemVerdict.tooManyInUpdate);
    expect(budget.charge(mapEntries(40))).toBe(ItemVerdict.ok);
    expect(budget.charge(mapEntries(20))).toBe(ItemVerdict.overRate);
    now = 1000;
    expect(budget.charge(mapEntries(50))).toBe(ItemVerdict.ok);
  });

  it('counts deleted ranges: a delete set of many ranges costs as many items', () => {
    const doc = new Y.Doc();
    const map = doc.getMap('annotations');
    doc.transact(() => {
      for (let i = 0; i < 60; i += 1) map.set(`k${i}`, i);
    });
    const before = Y.encodeStateVector(doc);
    doc.transact(() => {
      for (let i = 0; i < 60; i += 2) map.delete(`k${i}`);
    });
    const deletes = Y.encodeStateAsUpdate(doc, before);
    expect(new ItemBudget({ itemsPerUpdate: 30, itemsPerSecond: 1000, itemsBurst: 1000 }).charge(deletes)).toBe(ItemVerdict.ok);
    expect(new ItemBudget({ itemsPerUpdate: 29, itemsPerSecond: 1000, itemsBurst: 1000 }).charge(deletes)).toBe(ItemVerdict.tooManyInUpdate);
  });

  it('leaves a long pasted text alone: one struct however long', () => {
    const doc = new Y.Doc();
    doc.getText('notes').insert(0, 'x'.repeat(1_000_000));
    expect(new ItemBudget({ itemsPerUpdate: 100, itemsPerSecond: 1, itemsBurst: 100 }).charge(Y.encodeStateAsUpdate(doc))).toBe(ItemVerdict.ok);
  });

  it('throws MalformedUpdate for bytes that are not an update', () => {
    const budget = new ItemBudget({ itemsPerUpdate: 100, itemsPerSecond: 100, itemsBurst: 100 });
    expect(() => budget.charge(new Uint8Array([0, 0, 7]))).toThrow(MalformedUpdate);
  });

  it('charges a version-2 annotation two items and a version-1 one thirteen, whatever its values hold', () => {
    const note = (id: string): Annotation => ({
      id, docId: 'd', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'b'.repeat(10_000),
      author: { id: 'u', name: 'U', color: '#000' }, createdAt: 1, resolved: false, replies: [], instruction: '%fusion.3',
    });
    const update = (make: (a: Annotation) => Y.Map<unknown>, n: number) => {
      const doc = new Y.Doc();
      doc.transact(() => {
        for (let i = 0; i < n; i += 1) annotationsMap(doc).set(`a${i}`, make(note(`a${i}`)));
      });
      return Y.encodeStateAsUpdate(doc);
    };
    const limits = { itemsPerUpdate: 26, itemsPerSecond: 1000, itemsBurst: 1000 };
    expect(new ItemBudget(limits).charge(update(annotationToYMap, 13))).toBe(ItemVerdict.ok);
    expect(new ItemBudget(limits).charge(update(annotationToYMap, 14))).toBe(ItemVerdict.tooManyInUpdate);
    expect(new ItemBudget(limits).charge(update(annotationToVersion1YMap, 2))).toBe(ItemVerdict.ok);
    expect(new ItemBudget(limits).charge(update(annotationToVersion1YMap, 3))).toBe(ItemVerdict.tooManyInUpdate);
  });
});
