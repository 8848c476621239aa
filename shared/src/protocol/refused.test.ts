import * as decoding from 'lib0/decoding';
import { describe, expect, it } from 'vitest';
import { encodeAck } from './ack';
import { MessageType } from './messages';
import { decodeRefused, encodeRefused, readRefused, RefusalCode } from './refused';

describe('refused message', () => {
  it('is the type byte 101 then the reason as a varString', () => {
    expect([...encodeRefused({ reason: RefusalCode.locked })]).toEqual([101, 6, ...new TextEncoder().encode('locked')]);
  });

  it('round-trips every reason code, and a code this version does not know', () => {
    for (const reason of [...Object.values(RefusalCode), 'some-future-code']) {
      expect(decodeRefused(encodeRefused({ reason }))).toEqual({ reason });
      const d = decoding.createDecoder(encodeRefused({ reason }));
      expect(decoding.readVarUint(d)).toBe(MessageType.refused);
      expect(readRefused(d)).toEqual({ reason });
    }
  });

  it('tells other messages apart and throws on a truncated one', () => {
    expect(decodeRefused(encodeAck({ seq: 1, entries: [] }))).toBeUndefined();
    expect(() => decodeRefused(encodeRefused({ reason: 'forbidden-key' }).subarray(0, 4))).toThrow();
  });
});
