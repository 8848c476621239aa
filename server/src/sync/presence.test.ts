import { describe, expect, it } from 'vitest';
import { CloseCode, writeAwarenessEntries } from '@seam/shared/protocol';
import { PresenceClaims, readBoundedAwareness } from './presence';

describe('presence claims', () => {
  it('keeps an ID with its first owner until that owner is released', () => {
    const claims = new PresenceClaims<string>();
    claims.take('a', 1);
    claims.take('a', 2);
    expect(claims.ownerOf(1)).toBe('a');
    expect(claims.release('a')).toEqual([1, 2]);
    expect(claims.ownerOf(1)).toBeUndefined();
    expect(claims.release('a')).toEqual([]);
  });
});

describe('presence limits', () => {
  it('gives one connection at most maxPerConn IDs', () => {
    const claims = new PresenceClaims<string>(2);
    expect([claims.take('a', 1), claims.take('a', 2), claims.take('a', 3)]).toEqual([true, true, false]);
    expect(claims.ownerOf(3)).toBeUndefined();
    expect(claims.take('b', 3)).toBe(true);
    claims.release('a');
    expect(claims.take('a', 4)).toBe(true);
  });

  const limits = { connectionsPerRoom: 3, awarenessClientsPerSocket: 2, awarenessStateBytes: 300 };
  const entry = (clientID: number, state = '{"user":{"name":"Ann"}}') => ({ clientID, clock: 1, state });

  it('reads an update within the limits', () => {
    const entries = [entry(1), entry(2, 'null')];
    expect(readBoundedAwareness(writeAwarenessEntries(entries), limits)).toEqual({ ok: true, entries });
  });

  it('refuses more entries than a full room could own, from the count alone', () => {
    const update = writeAwarenessEntries(Array.from({ length: 7 }, (_, i) => entry(i + 1)));
    expect(readBoundedAwareness(update, limits)).toEqual({ ok: false, close: CloseCode.rateLimited });
    // A count that the bytes cannot hold is refused without reading them.
    expect(readBoundedAwareness(new Uint8Array([0xa0, 0x8d, 0x06]), limits)).toEqual({ ok: false, close: CloseCode.rateLimited });
  });

  it('refuses a state longer than awarenessStateBytes', () => {
    const update = writeAwarenessEntries([entry(1), entry(2, JSON.stringify({ pad: 'x'.repeat(300) }))]);
    expect(readBoundedAwareness(update, limits)).toEqual({ ok: false, close: CloseCode.messageTooBig });
  });

  it("refuses a presenter's malformed diff view, and applies a well-formed one", () => {
    const view = (diff: unknown) => JSON.stringify({ view: { docId: 'a1', topLine: 1, anchor: 0, head: 0, diff } });
    const good = [entry(1), entry(2, view({ a: 'a1', b: 'b1', topA: 1, topB: 9, selected: { side: 'a', line: 3 } }))];
    expect(readBoundedAwareness(writeAwarenessEntries(good), limits)).toEqual({ ok: true, entries: good });
    const bad = writeAwarenessEntries([entry(1), entry(2, view({ a: 'a1', b: 'a1', topA: 1, topB: 9 }))]);
    expect(readBoundedAwareness(bad, limits)).toEqual({ ok: false, close: CloseCode.malformedMessage });
  });
});
