import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { diffViewIsWellFormed, handIsWellFormed, MAX_HAND_TIME, MAX_VIEW_LINE, readAwarenessEntries, readDiffView, readHand, writeAwarenessEntries } from './awareness';

describe('awareness entries', () => {
  it('reads what y-protocols writes, and writes it back byte for byte', () => {
    const a = new awarenessProtocol.Awareness(new Y.Doc());
    a.setLocalState({ user: { name: 'Ann', color: '#ff0000' } });
    const update = awarenessProtocol.encodeAwarenessUpdate(a, [a.clientID]);
    const entries = readAwarenessEntries(update);
    expect(entries).toEqual([{ clientID: a.clientID, clock: 1, state: '{"user":{"name":"Ann","color":"#ff0000"}}' }]);
    expect(writeAwarenessEntries(entries)).toEqual(update);
  });

  it('throws on truncated, inflated or trailing bytes', () => {
    const update = writeAwarenessEntries([{ clientID: 7, clock: 2, state: 'null' }]);
    expect(() => readAwarenessEntries(update.subarray(0, update.length - 1))).toThrow();
    expect(() => readAwarenessEntries(new Uint8Array([200, 1]))).toThrow(/entry count/);
    expect(() => readAwarenessEntries(new Uint8Array([...update, 0]))).toThrow(/trailing/);
  });
});

describe('raised hands in awareness', () => {
  it('reads no hand from an absent or null field, and a hand from exactly { raisedAt }', () => {
    expect(readHand(undefined)).toBeNull();
    expect(readHand(null)).toBeNull();
    expect(readHand({ raisedAt: 1_764_000_000_000 })).toEqual({ raisedAt: 1_764_000_000_000 });
    expect(readHand({ raisedAt: MAX_HAND_TIME })).toEqual({ raisedAt: MAX_HAND_TIME });
  });

  it('refuses a hand with extra keys, a time that is not a positive integer, or the wrong shape', () => {
    const bad: unknown[] = [
      { raisedAt: 1, by: 'owner' },
      { raisedAt: '1764000000000' },
      { raisedAt: 1.5 },
      { raisedAt: 0 },
      { raisedAt: -5 },
      { raisedAt: MAX_HAND_TIME + 1 },
      { raisedAt: Number.NaN },
      {},
      [1],
      true,
      'up',
      7,
    ];
    for (const v of bad) expect(readHand(v), JSON.stringify(v)).toBeUndefined();
  });

  it('checks the hand of a state as the server receives it, escaped keys included', () => {
    expect(handIsWellFormed('{"user":{"name":"Ann","color":"#ff0000"}}')).toBe(true);
    expect(handIsWellFormed('{"user":{"name":"Ann"},"hand":null}')).toBe(true);
    expect(handIsWellFormed('{"hand":{"raisedAt":1764000000000}}')).toBe(true);
    expect(handIsWellFormed('null')).toBe(true);
    expect(handIsWellFormed('{"hand":{"raisedAt":1764000000000,"loweredBy":"x"}}')).toBe(false);
    expect(handIsWellFormed('{"hand":"up"}')).toBe(false);
    expect(handIsWellFormed('{"\\u0068and":{"raisedAt":-1}}')).toBe(false);
    // A name that merely mentions a hand is no hand.
    expect(handIsWellFormed('{"user":{"name":"\\"hand\\""}}')).toBe(true);
  });
});

describe("a presenter's diff view in awareness", () => {
  const ok = { a: 'a1', b: 'b1', topA: 12, topB: 30 };

  it('reads no diff from an absent or null field, and a diff from exactly { a, b, topA, topB, selected? }', () => {
    expect(readDiffView(undefined)).toBeNull();
    expect(readDiffView(null)).toBeNull();
    expect(readDiffView(ok)).toEqual(ok);
    expect(readDiffView({ ...ok, topB: MAX_VIEW_LINE, selected: { side: 'b', line: 154 } })).toEqual({ ...ok, topB: MAX_VIEW_LINE, selected: { side: 'b', line: 154 } });
  });

  it('refuses a diff with an extra key, a bad id or line, the same document twice, or a malformed selected line', () => {
    const bad: unknown[] = [
      { ...ok, extra: 1 },
      { a: 'a1', topA: 1, topB: 1 },
      { ...ok, b: 'a1' },
      { ...ok, a: '' },
      { ...ok, b: 'x'.repeat(201) },
      { ...ok, a: 7 },
      { ...ok, topA: 0 },
      { ...ok, topA: 1.5 },
      { ...ok, topB: Number.NaN },
      { ...ok, topA: MAX_VIEW_LINE + 1 },
      { ...ok, topB: '5' },
      { ...ok, selected: { side: 'c', line: 3 } },
      { ...ok, selected: { side: 'a', line: 0 } },
      { ...ok, selected: { side: 'a', line: 3, extra: true } },
      { ...ok, selected: null },
      { ...ok, selected: 'line 3' },
      [ok],
      'a1 vs b1',
      7,
    ];
    for (const v of bad) expect(readDiffView(v), JSON.stringify(v)).toBeUndefined();
  });

  it('checks the diff of a state as the server receives it, escaped keys included', () => {
    expect(diffViewIsWellFormed('{"user":{"name":"Ann"}}')).toBe(true);
    expect(diffViewIsWellFormed('{"view":null}')).toBe(true);
    expect(diffViewIsWellFormed('{"view":{"docId":"a1","topLine":1}}')).toBe(true);
    expect(diffViewIsWellFormed(JSON.stringify({ view: { docId: 'a1', topLine: 1, diff: ok } }))).toBe(true);
    expect(diffViewIsWellFormed(JSON.stringify({ view: { docId: 'a1', topLine: 1, diff: { ...ok, b: 'a1' } } }))).toBe(false);
    // `"\u0064iff"` in the JSON text is the key `diff`.
    expect(diffViewIsWellFormed('{"view":{"\\u0064iff":{"a":"x"}}}')).toBe(false);
    expect(diffViewIsWellFormed('not json')).toBe(true);
  });
});
