import { describe, expect, it } from 'vitest';
import { answerKey } from './answer-key';

function memory(): Pick<Storage, 'getItem' | 'setItem'> & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

describe('answerKey', () => {
  it('makes a 32-character key once per room and keeps it', () => {
    const s = memory();
    const a = answerKey(s, 'r1');
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(answerKey(s, 'r1')).toBe(a);
    expect(answerKey(s, 'r2')).not.toBe(a);
  });

  it('replaces a damaged stored key', () => {
    const s = memory();
    s.setItem('seam.drill-key.r1', '<script>');
    const a = answerKey(s, 'r1');
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s.items.get('seam.drill-key.r1')).toBe(a);
  });
});
