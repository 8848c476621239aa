import { describe, expect, it } from 'vitest';
import type { Annotation } from '@seam/shared/model';
import { ANY, authorsOf, filterAnnotations, shortQuote } from './annotation-filter';

const base = { from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, body: '', createdAt: 0, replies: [] };
const list: Annotation[] = [
  { ...base, id: '1', docId: 'd1', kind: 'spill', resolved: false, author: { id: 'ada', name: 'Ada', color: '#000000' } },
  { ...base, id: '2', docId: 'd2', kind: 'note', resolved: true, author: { id: 'bo', name: 'Bo', color: '#000000' } },
  { ...base, id: '3', docId: 'd1', kind: 'note', resolved: false, author: { id: 'bo', name: 'Bo', color: '#000000' } },
];

describe('filterAnnotations', () => {
  it('passes everything with no filter', () => {
    expect(filterAnnotations(list, ANY).map((a) => a.id)).toEqual(['1', '2', '3']);
  });
  it('combines document, kind, status and author', () => {
    expect(filterAnnotations(list, { ...ANY, docId: 'd1' }).map((a) => a.id)).toEqual(['1', '3']);
    expect(filterAnnotations(list, { ...ANY, kind: 'note', status: 'open' }).map((a) => a.id)).toEqual(['3']);
    expect(filterAnnotations(list, { ...ANY, status: 'resolved' }).map((a) => a.id)).toEqual(['2']);
    expect(filterAnnotations(list, { ...ANY, authorId: 'ada', kind: 'note' })).toEqual([]);
  });
  it('lists each author once, by name', () => {
    expect(authorsOf(list)).toEqual([{ id: 'ada', name: 'Ada' }, { id: 'bo', name: 'Bo' }]);
  });
  it('shortens quotes to one line', () => {
    expect(shortQuote('a\n  b')).toBe('a b');
    expect(shortQuote('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
