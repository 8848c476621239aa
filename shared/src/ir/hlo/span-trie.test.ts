import { describe, expect, it } from 'vitest';
import { SpanTrie } from './span-trie';

function walk(trie: SpanTrie<string>, text: string): string | undefined {
  let node = SpanTrie.ROOT;
  for (let p = 0; p < text.length; p++) node = trie.next(node, text.charCodeAt(p));
  return trie.at(node);
}

describe('SpanTrie', () => {
  it('finds a stored span by walking its characters, and nothing for a prefix, an extension or another span', () => {
    const text = 'f32[2]{0} f32[2]{0,1} multiply';
    const trie = new SpanTrie<string>();
    trie.set(text, 0, 9, 'shape');
    trie.set(text, 22, 30, 'op');
    expect(walk(trie, 'f32[2]{0}')).toBe('shape');
    expect(walk(trie, 'multiply')).toBe('op');
    expect(walk(trie, 'f32[2]')).toBeUndefined();
    expect(walk(trie, 'f32[2]{0}}')).toBeUndefined();
    expect(walk(trie, 'f32[2]{0,1}')).toBeUndefined();
    expect(walk(trie, 'xmultiply')).toBeUndefined();
  });

  it('stores nothing for characters beyond ASCII, and stops storing once full without losing what it holds', () => {
    const trie = new SpanTrie<string>();
    trie.set('é', 0, 1, 'accent');
    expect(walk(trie, 'é')).toBeUndefined();
    const words = Array.from({ length: 5000 }, (_, i) => `op${i}x`);
    for (const w of words) trie.set(w, 0, w.length, w);
    const found = words.filter((w) => walk(trie, w) === w);
    expect(found.length).toBeGreaterThan(100);
    expect(found.length).toBeLessThan(words.length);
    expect(found).toEqual(words.slice(0, found.length));
  });
});
