import * as Y from 'yjs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readUpdateHeaders, StructKind, TooManyItems, type StructHeader } from './update-headers';

/** The same facts as `StructHeader`, read from what `Y.decodeUpdate` builds. */
function fromYjs(update: Uint8Array): { structs: StructHeader[]; ds: [number, { clock: number; len: number }[]][] } {
  const { structs, ds } = Y.decodeUpdate(update);
  const id = (x: Y.ID | null) => (x ? { client: x.client, clock: x.clock } : null);
  return {
    structs: structs.map((s) => {
      const kind = s instanceof Y.Skip ? StructKind.skip : s instanceof Y.GC ? StructKind.gc : StructKind.item;
      const item = s instanceof Y.Item ? s : undefined;
      const parent = item?.parent as unknown;
      return {
        kind, id: { client: s.id.client, clock: s.id.clock }, length: s.length,
        parent: typeof parent === 'string' ? parent : parent instanceof Y.ID ? id(parent) : null,
        origin: id(item?.origin ?? null), rightOrigin: id(item?.rightOrigin ?? null),
      };
    }),
    ds: [...ds.clients].map(([c, r]) => [c, r.map((x) => ({ clock: x.clock, len: x.len }))]),
  };
}

/** Edits covering every content kind: strings, any, JSON, binary, embeds and formats, types, XML, subdocs, deletes. */
function editedDoc(seed: number, ops: readonly number[]): Y.Doc {
  const doc = new Y.Doc();
  doc.clientID = seed;
  const text = doc.getText('notes');
  const map = doc.getMap('annotations');
  const list = doc.getArray<unknown>('list');
  const xml = doc.getXmlFragment('xml');
  ops.forEach((op, i) => {
    if (op === 0) text.insert(Math.min(i, text.length), `héllo 😀 ${i}`);
    else if (op === 1) map.set(`k${i % 5}`, { n: i, s: 'x', a: [1, null, true], b: new Uint8Array([i]) });
    else if (op === 2) list.push([i, 'two', new Uint8Array([1, 2, 3])]);
    else if (op === 3) text.insertEmbed(0, { image: 'i' }, { bold: true });
    else if (op === 4) text.format(0, Math.min(3, text.length), { italic: true });
    else if (op === 5) map.set(`m${i}`, new Y.Map([['x', i]]));
    else if (op === 6) xml.insert(0, [new Y.XmlElement('p'), new Y.XmlText('t')]);
    else if (op === 7) list.insert(0, [new Y.Doc()]);
    else if (op === 8 && text.length > 2) text.delete(1, 2);
    else if (op === 9 && list.length > 0) list.delete(0, 1);
    else list.insert(0, [new Y.Array()]);
  });
  doc.getArray<unknown>('legacy').insert(0, [{}]);
  return doc;
}

describe('readUpdateHeaders', () => {
  it('reads the same structs and delete set as Y.decodeUpdate, for every content kind', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 40 }), (seed, ops) => {
        const doc = editedDoc(seed, ops);
        const update = Y.encodeStateAsUpdate(doc);
        const mine = readUpdateHeaders(update);
        expect({ structs: mine.structs, ds: [...mine.ds] }).toEqual(fromYjs(update));
        doc.destroy();
      }),
      { numRuns: 150 },
    );
  });

  it('reads the structs of an incremental update whose parents are IDs and whose items have origins', () => {
    const doc = editedDoc(7, [0, 1, 2, 5, 6]);
    const sv = Y.encodeStateVector(doc);
    doc.getText('notes').insert(3, 'more');
    (doc.getMap('annotations').get('m3') as Y.Map<number>).set('y', 1);
    const update = Y.encodeStateAsUpdate(doc, sv);
    const mine = readUpdateHeaders(update);
    expect(mine.structs.some((s) => s.parent !== null && typeof s.parent === 'object')).toBe(true);
    expect(mine.structs.some((s) => s.origin !== null)).toBe(true);
    expect({ structs: mine.structs, ds: [...mine.ds] }).toEqual(fromYjs(update));
  });

  it('throws, rather than reading past the end, on every cut of a real update that Yjs cannot read either', () => {
    const update = Y.encodeStateAsUpdate(editedDoc(3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    let refused = 0;
    for (let cut = 1; cut < update.length; cut += 1) {
      const part = update.subarray(0, cut);
      let yjsRead = true;
      try {
        Y.decodeUpdate(part);
      } catch {
        yjsRead = false;
      }
      if (yjsRead) continue;
      refused += 1;
      expect(() => readUpdateHeaders(part)).toThrow();
    }
    expect(refused).toBeGreaterThan(update.length / 2);
  });

  it('refuses bytes after the delete set, which Yjs would ignore but the room would store and relay', () => {
    const doc = new Y.Doc();
    doc.getMap('a').set('k', 'v');
    const update = Y.encodeStateAsUpdate(doc);
    expect(readUpdateHeaders(update).structs).toHaveLength(1);
    const padded = new Uint8Array([...update, 0, 0, 0]);
    expect(() => Y.applyUpdate(new Y.Doc(), padded)).not.toThrow();
    expect(() => readUpdateHeaders(padded)).toThrow(/3 bytes after the delete set/);
  });

  it('refuses an unknown content ref', () => {
    // One group of one struct by client 1 at clock 0: info 11 (no such content), parent root "a".
    expect(() => readUpdateHeaders(new Uint8Array([1, 1, 1, 0, 11, 1, 1, 97]))).toThrow(/content ref 11/);
  });

  it('refuses a value of no known type inside "any" content, as Yjs does', () => {
    // The same struct with content "any" (ref 8) holding one value of type byte 50.
    const bytes = new Uint8Array([1, 1, 1, 0, 8, 1, 1, 97, 1, 50]);
    expect(() => Y.decodeUpdate(bytes)).toThrow();
    expect(() => readUpdateHeaders(bytes)).toThrow(/value type 50/);
  });

  it('stops with TooManyItems once structs plus deleted ranges pass maxEntries', () => {
    const doc = new Y.Doc();
    const map = doc.getMap('m');
    doc.transact(() => {
      for (let i = 0; i < 10; i += 1) map.set(`k${i}`, i);
    });
    doc.transact(() => {
      for (let i = 0; i < 10; i += 2) map.delete(`k${i}`);
    });
    // Ten structs for the keys (the deleted ones too), and five deleted ranges.
    const update = Y.encodeStateAsUpdate(doc);
    expect(readUpdateHeaders(update, 15).structs).toHaveLength(10);
    expect(() => readUpdateHeaders(update, 14)).toThrow(TooManyItems);
    expect(() => readUpdateHeaders(update, 9)).toThrow(/more than 9 structs/);
  });
});
