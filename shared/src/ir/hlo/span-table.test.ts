import { describe, expect, it } from 'vitest';
import { parseHlo } from './parser';
import { SpanTable, spanHash } from './span-table';

describe('SpanTable', () => {
  const text = 'f32[2]{0} x f32[2]{0} f32[3]{0}';

  it('finds a value by equal characters elsewhere in the text, and nothing for different ones', () => {
    const t = new SpanTable<string>(text);
    t.set(0, 9, 'first');
    expect(t.get(12, 21)).toBe('first');
    expect(t.get(22, 31)).toBeUndefined();
    expect(t.get(0, 8)).toBeUndefined();
  });

  it('tells apart long spans that differ only between the characters it hashes', () => {
    const a = `{op_name="${'a'.repeat(60)}" stack_frame_id=1}`;
    const b = `{op_name="${'a'.repeat(31)}b${'a'.repeat(28)}" stack_frame_id=1}`;
    const long = `${a} ${b} ${a}`;
    expect(spanHash(long, 0, a.length)).toBe(spanHash(long, a.length + 1, 2 * a.length + 1));
    const t = new SpanTable<string>(long);
    for (let i = 0; i < 200; i++) t.setKey(`k${i}`, `v${i}`);
    t.set(0, a.length, 'a');
    expect(t.get(a.length + 1, 2 * a.length + 1)).toBeUndefined();
    t.set(a.length + 1, 2 * a.length + 1, 'b');
    expect(t.get(2 * a.length + 2, 3 * a.length + 2)).toBe('a');
    expect(t.get(a.length + 1, 2 * a.length + 1)).toBe('b');
    expect(new SpanTable<string>('k7').get(0, 2)).toBeUndefined();
    expect(t.get(0, 0)).toBeUndefined();
  });

  it('still finds every value after growing past many keys', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`);
    const t = new SpanTable<number>(words.join(' '));
    words.forEach((w, i) => t.setKey(w, i));
    let at = 0;
    const found = words.map((w) => {
      const v = t.get(at, at + w.length);
      at += w.length + 1;
      return v;
    });
    expect(found).toEqual(words.map((_, i) => i));
  });
});

describe('repeated metadata', () => {
  const ins = (name: string, meta: string) => `  ${name} = f32[] constant(1), metadata=${meta}\n`;

  it('tells apart metadata that agree up to a nested group or a brace in a string', () => {
    const text = `ENTRY e {\n${[
      ins('a', '{op_name="x" profile_type={1} source_line=3}'),
      ins('b', '{op_name="x" profile_type={1} source_line=4}'),
      ins('c', '{op_name="y}" source_line=5}'),
      ins('d', '{op_name="y}" source_line=6}'),
      ins('e', '{op_name="z" source_line=7}'),
      ins('f', '{op_name="z" source_line=7}'),
    ].join('')}  ROOT r = f32[] constant(0)\n}\n`;
    const { ast, diagnostics } = parseHlo(text);
    expect(diagnostics).toEqual([]);
    const found = ast.modules[0]?.computations[0]?.instructions.map((i) => [i.metadata?.opName, i.metadata?.sourceLine]);
    expect(found).toEqual([['x', 3], ['x', 4], ['y}', 5], ['y}', 6], ['z', 7], ['z', 7], [undefined, undefined]]);
    const [, , , , e, f] = ast.modules[0]?.computations[0]?.instructions ?? [];
    expect(e?.metadata).toBe(f?.metadata);
  });

  it('reports unclosed metadata once', () => {
    const { diagnostics } = parseHlo('ENTRY e {\n  ROOT a = f32[] constant(1), metadata={op_name="x');
    expect(diagnostics.filter((d) => /unterminated string/.test(d.message))).toHaveLength(1);
  });
});
