import { describe, expect, it } from 'vitest';
import { BusFrameError, BusKind, readFrame, writeFrame } from './frame';

describe('room bus frames', () => {
  it('reads back what it wrote, for every kind', () => {
    for (const kind of Object.values(BusKind)) {
      const frame = { kind, origin: 'inst_1', data: new Uint8Array([0, 1, 255]) };
      expect(readFrame(writeFrame(frame))).toEqual(frame);
    }
  });

  it('refuses foreign, truncated and padded messages with BusFrameError', () => {
    const good = writeFrame({ kind: BusKind.update, origin: 'inst_1', data: new Uint8Array([7, 7]) });
    const bad = [
      new Uint8Array(0),
      new Uint8Array([2, ...good.slice(1)]),
      new Uint8Array([1, 9, ...good.slice(2)]),
      good.slice(0, good.length - 1),
      new Uint8Array([...good, 0]),
      writeFrame({ kind: BusKind.update, origin: '', data: new Uint8Array([1]) }),
      writeFrame({ kind: BusKind.update, origin: 'x'.repeat(65), data: new Uint8Array([1]) }),
      new TextEncoder().encode('{"hello":"json"}'),
    ];
    for (const bytes of bad) expect(() => readFrame(bytes)).toThrow(BusFrameError);
  });
});
