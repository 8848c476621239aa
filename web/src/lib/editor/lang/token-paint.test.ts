import { describe, expect, it } from 'vitest';
import { canPaintTokens, paintGroup } from './token-paint';

describe('token painting', () => {
  it('paints each coloured style in the group of its last coloured name, and leaves definitions to marks', () => {
    expect(paintGroup('keyword')).toBe('keyword');
    expect(paintGroup('typeName')).toBe('type');
    expect(paintGroup('variableName.function')).toBe('fn');
    expect(paintGroup('lineComment')).toBe('comment');
    expect(paintGroup('variableName.definition')).toBeNull();
    expect(paintGroup('punctuation')).toBeNull();
    expect(paintGroup('name')).toBeNull();
  });

  it('falls back to marks where the page has no CSS highlights', () => {
    expect(canPaintTokens()).toBe(false);
  });
});
