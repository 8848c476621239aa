import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readUpdateHeaders, StructKind } from './update-headers';
import { writeUpdate, type StructSpec } from './update-writer';

describe('writeUpdate', () => {
  it('writes what readUpdateHeaders and Yjs read back: items by parent, parentSub or origins, GC, skip, deletes', () => {
    const structs: StructSpec[] = [
      { kind: StructKind.item, id: { client: 9, clock: 0 }, parent: 'notes', content: ['a', 1] },
      { kind: StructKind.item, id: { client: 9, clock: 2 }, origin: { client: 9, clock: 1 }, rightOrigin: { client: 3, clock: 4 }, content: [{ x: null }] },
      { kind: StructKind.item, id: { client: 9, clock: 3 }, parent: { client: 3, clock: 0 }, parentSub: 'k', content: [true] },
      { kind: StructKind.gc, id: { client: 9, clock: 4 }, length: 2 },
      { kind: StructKind.skip, id: { client: 4, clock: 7 }, length: 3 },
    ];
    const update = writeUpdate(structs, new Map([[3, [{ clock: 1, len: 2 }]]]));
    const { structs: read, ds } = readUpdateHeaders(update);
    expect(read.map((s) => [s.kind, s.id, s.length, s.parent, s.origin, s.rightOrigin])).toEqual([
      [StructKind.item, { client: 9, clock: 0 }, 2, 'notes', null, null],
      [StructKind.item, { client: 9, clock: 2 }, 1, null, { client: 9, clock: 1 }, { client: 3, clock: 4 }],
      [StructKind.item, { client: 9, clock: 3 }, 1, { client: 3, clock: 0 }, null, null],
      [StructKind.gc, { client: 9, clock: 4 }, 2, null, null, null],
      [StructKind.skip, { client: 4, clock: 7 }, 3, null, null, null],
    ]);
    expect([...ds]).toEqual([[3, [{ clock: 1, len: 2 }]]]);
    const decoded = Y.decodeUpdate(update).structs;
    expect(((decoded[2] as Y.Item).parentSub)).toBe('k');
    expect((decoded[0] as Y.Item).content.getContent()).toEqual(['a', 1]);
  });

  it('refuses a group whose clocks do not follow each other, and an item with nothing to hang by', () => {
    const at = (clock: number): StructSpec => ({ kind: StructKind.item, id: { client: 1, clock }, parent: 'notes', content: [1] });
    expect(() => writeUpdate([at(0), at(2)])).toThrow(RangeError);
    expect(() => writeUpdate([{ kind: StructKind.item, id: { client: 1, clock: 0 }, content: [1] }])).toThrow(RangeError);
  });
});
