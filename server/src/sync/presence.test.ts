import { describe, expect, it } from 'vitest';
import { PresenceClaims } from './presence';

describe('presence claims', () => {
  it('keeps an ID with its first owner until that owner is released', () => {
    const claims = new PresenceClaims<string>();
    claims.take('a', 1);
    claims.take('a', 2);
    expect(claims.ownerOf(1)).toBe('a');
    expect(claims.release('a')).toEqual([1, 2]);
    expect(claims.ownerOf(1)).toBeUndefined();
    expect(claims.release('a')).toEqual([]);
  });
});
