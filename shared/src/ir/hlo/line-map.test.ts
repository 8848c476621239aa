import { describe, expect, it } from 'vitest';
import { LineMap } from './line-map';

describe('LineMap', () => {
  const text = 'a\nbb\n\nccc\nd';
  const naive = (o: number) => text.slice(0, o).split('\n').length;
  const offsets = [...Array(text.length + 1).keys()];

  it('gives the 1-based line of every offset, whatever order they are asked in', () => {
    const map = new LineMap(text);
    for (const order of [offsets, [...offsets].reverse(), offsets.map((_, i) => (i * 7) % offsets.length)]) {
      expect(order.map((o) => map.lineAt(o))).toEqual(order.map(naive));
    }
    expect(map.count).toBe(5);
  });

  it('numbers a text of far more lines than characters per line would suggest', () => {
    const short = 'x\n'.repeat(5000);
    const map = new LineMap(short);
    expect(map.count).toBe(5001);
    expect([0, 1, 2, 9999, 10000].map((o) => map.lineAt(o))).toEqual([1, 1, 2, 5000, 5001]);
  });

  it('counts one line in an empty text', () => {
    expect(new LineMap('').lineAt(0)).toBe(1);
  });
});
