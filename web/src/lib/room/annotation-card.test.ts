import { describe, expect, it } from 'vitest';
import { cardTime, carriedFrom, lineAtOffset, lineLabel, lineStarts } from './annotation-card';

describe('annotation card lines', () => {
  const text = 'HloModule m\n\nENTRY main {\n  %p = f32[4]{0} parameter(0)\n}';
  const starts = lineStarts(text);

  it('finds the line of every offset, the newline itself belonging to the line it ends', () => {
    for (let pos = 0; pos <= text.length; pos++) expect(lineAtOffset(starts, pos), `offset ${pos}`).toBe(text.slice(0, pos).split('\n').length);
  });

  it('labels one line or a range of lines, an end at a line start not counting that line', () => {
    const p = text.indexOf('%p');
    expect(lineLabel(starts, p, p + 2)).toBe('line 4');
    expect(lineLabel(starts, 0, text.indexOf('ENTRY'))).toBe('lines 1–2');
    expect(lineLabel(starts, text.indexOf('ENTRY'), text.length)).toBe('lines 3–5');
    expect(lineLabel(lineStarts(''), 0, 0)).toBe('line 1');
  });
});

describe('annotation card times', () => {
  const now = new Date(2026, 11, 1, 23, 50).getTime();
  it('gives the time today, the day and time this year, and the day and year before', () => {
    expect(cardTime(new Date(2026, 11, 1, 9, 5).getTime(), now)).toBe('09:05');
    expect(cardTime(new Date(2026, 2, 3, 14, 5).getTime(), now)).toBe('3 Mar 14:05');
    expect(cardTime(new Date(2025, 11, 1, 9, 5).getTime(), now)).toBe('1 Dec 2025');
    expect(cardTime(Number.NaN, now)).toBe('');
  });
});

describe('carriedFrom', () => {
  const versions = new Map([['cap_a', 1]]);
  const titles = new Map([['d1', 'mlp: jaxpr']]);
  const label = (captureId: string | undefined, docId: string) =>
    carriedFrom({ annotationId: 'a1', docId, ...(captureId ? { captureId } : {}), detached: false }, (id) => versions.get(id), (id) => titles.get(id));
  it('names the version and the document the original sits on, as far as they are known', () => {
    expect(label('cap_a', 'd1')).toBe('carried from v1 · mlp: jaxpr');
    expect(label('cap_gone', 'd1')).toBe('carried from mlp: jaxpr');
    expect(label('cap_a', 'gone')).toBe('carried from v1');
    expect(label(undefined, 'gone')).toBe('carried');
  });
});
