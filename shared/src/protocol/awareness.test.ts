import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { handIsWellFormed, MAX_HAND_TIME, readAwarenessEntries, readHand, writeAwarenessEntries } from './awareness';

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
