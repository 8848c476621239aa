import { describe, expect, it } from 'vitest';
import { Scanner } from './scanner';
import { hashSpan, SpanTable } from './span-table';

describe('SpanTable', () => {
  const text = 'f32[2]{0} x f32[2]{0} f32[3]{0} {a="}"} {a="}"}';

  it('finds a value by equal characters elsewhere in the text, and nothing for different ones', () => {
    const t = new SpanTable<string>(text);
    t.set(0, 9, 'first');
    expect(t.get(12, 21)).toBe('first');
    expect(t.get(22, 31)).toBeUndefined();
    expect(t.get(0, 8)).toBeUndefined();
  });

  it('hashes a group while skipping it exactly as hashSpan does, strings opaque', () => {
    const s = new Scanner(text);
    s.pos = text.indexOf('{a=');
    const from = s.pos;
    const h = s.skipGroupHashed();
    expect(text.slice(from, s.pos)).toBe('{a="}"}');
    expect(h).toBe(hashSpan(text, from, s.pos));
    expect(new Scanner('{a="').skipGroupHashed()).toBe(-1);
  });
});
