import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readAwarenessEntries, writeAwarenessEntries } from './awareness';

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
