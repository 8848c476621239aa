import * as decoding from 'lib0/decoding';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAck, encodeAck, readAck } from './ack';
import { MessageType } from './messages';

describe('ack message', () => {
  it('round-trips seq and entries through the bytes PROTOCOL.md states', () => {
    const bytes = encodeAck({ seq: 3, entries: [{ clientID: 1, clock: 200 }] });
    expect(Array.from(bytes)).toEqual([100, 3, 1, 1, 200, 1]);
    expect(decodeAck(bytes)).toEqual({ seq: 3, entries: [{ clientID: 1, clock: 200 }] });
  });

  it('matches the example in PROTOCOL.md', () => {
    expect(Array.from(encodeAck({ seq: 3, entries: [{ clientID: 12345, clock: 200 }] }))).toEqual([0x64, 0x03, 0x01, 0xb9, 0x60, 0xc8, 0x01]);
  });

  it('round-trips any ack', () => {
    const entry = fc.record({ clientID: fc.nat(2 ** 32 - 1), clock: fc.nat() });
    fc.assert(
      fc.property(fc.record({ seq: fc.nat(), entries: fc.array(entry, { maxLength: 20 }) }), (ack) => {
        expect(decodeAck(encodeAck(ack))).toEqual(ack);
      }),
    );
  });

  it('returns undefined for other message types', () => {
    expect(decodeAck(new Uint8Array([MessageType.sync, 0, 0]))).toBeUndefined();
  });

  it('throws on truncated input instead of reading garbage', () => {
    const bytes = encodeAck({ seq: 1, entries: [{ clientID: 7, clock: 9 }, { clientID: 8, clock: 10 }] });
    expect(() => decodeAck(bytes.subarray(0, bytes.length - 1))).toThrow();
    const huge = decoding.createDecoder(new Uint8Array([1, 0xff, 0xff, 0x03]));
    expect(() => readAck(huge)).toThrow(RangeError);
  });
});
