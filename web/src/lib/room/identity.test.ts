import { describe, expect, it } from 'vitest';
import { cleanName, initials, loadIdentity, saveIdentity } from './identity';

function memory(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
    key: (i) => [...m.keys()][i] ?? null,
    get length() {
      return m.size;
    },
  };
}

describe('identity', () => {
  it('keeps a chosen name and colour across loads', () => {
    const s = memory();
    saveIdentity(s, { id: 'u1', name: 'Ada', color: '#1971c2' });
    expect(loadIdentity(s)).toEqual({ id: 'u1', name: 'Ada', color: '#1971c2' });
  });
  it('reads damaged or hostile storage as no identity', () => {
    const s = memory();
    s.setItem('seam.identity', '{not json');
    expect(loadIdentity(s)).toBeNull();
    s.setItem('seam.identity', JSON.stringify({ id: 'u', name: 'x', color: 'red;background:url(x)' }));
    expect(loadIdentity(s)).toBeNull();
  });
  it('trims names and refuses blank ones', () => {
    expect(cleanName('  Ada   Lovelace ')).toBe('Ada Lovelace');
    expect(cleanName('   ')).toBeNull();
    expect(cleanName('x'.repeat(100))).toHaveLength(40);
  });
  it('makes initials from one or two words', () => {
    expect(initials('Ada Lovelace')).toBe('AL');
    expect(initials('bo')).toBe('BO');
    expect(initials('')).toBe('?');
  });
});
