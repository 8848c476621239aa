import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { quoteOf } from './annotation';
import type { DocumentMeta } from './document';
import { buildExport, exportToMarkdown, formatBytes } from './export';

const TEXT = ['HloModule m', '', 'ENTRY main {', '  %p = f32[4]{0} parameter(0)', '  %fusion.3 = bf16[8192,8192]{1,0} fusion(%p), kind=kLoop, calls=%fc', '}'].join('\n');
const DOCS: DocumentMeta[] = [
  { id: 'd1', title: 'attention.hlo', kind: 'hlo-opt', bytes: TEXT.length, sha256: 'x', createdAt: 1 },
  { id: 'd2', title: 'notes ``` tricky', kind: 'text', bytes: 3, sha256: 'y', createdAt: 2 },
];
const author = { id: 'u1', name: 'Ada', color: '#123456' };

function annotation(over: Partial<Annotation> & Pick<Annotation, 'id' | 'from' | 'to'>, text = TEXT): Annotation {
  return { docId: 'd1', quote: quoteOf(text, over.from, over.to), kind: 'note', body: '', author, createdAt: 10, resolved: false, replies: [], ...over };
}

describe('room export', () => {
  const from = TEXT.indexOf('%fusion.3');
  const spill = annotation({
    id: 'a1', from, to: from + '%fusion.3'.length, kind: 'spill', body: 'the S×S score matrix\nwritten then read back',
    instruction: 'fusion.3', bytes: 134_217_728, traffic: 268_435_456,
    replies: [{ id: 'r1', body: 'agreed', author: { id: 'u2', name: 'Bo', color: '#000' }, createdAt: 11 }],
  });

  it('quotes the whole lines an annotation marks, with kind, size, traffic, thread and status', () => {
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [spill], textOf: (id) => (id === 'd1' ? TEXT : undefined), now: 0 });
    expect(e.annotations[0]).toMatchObject({ document: 'attention.hlo', lineFrom: 5, lineTo: 5, detached: false, quoted: TEXT.split('\n')[4] });
    const md = exportToMarkdown(e);
    expect(md).toContain('### **spill** · `fusion.3` · 134,217,728 B (128 MiB) · 268,435,456 B (256 MiB) traffic · open');
    expect(md).toContain(`\`\`\`\n${TEXT.split('\n')[4]}\n\`\`\``);
    expect(md).toContain('attention.hlo, line 5 — Ada');
    expect(md).toContain('> the S×S score matrix\n> written then read back');
    expect(md).toContain('- **Bo**: agreed');
    expect(md).toContain(`- attention.hlo (hlo-opt, ${TEXT.length} B)`);
  });

  it('orders annotations by document, then position, and flags a quote the text no longer holds', () => {
    const later = annotation({ id: 'a2', from: 0, to: 9, createdAt: 5 });
    const moved = { ...annotation({ id: 'a3', from: 0, to: 3, docId: 'd2' }), quote: { prefix: '', exact: 'gone', suffix: '' } };
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [moved, spill, later], textOf: (id) => (id === 'd1' ? TEXT : 'abc'), now: 0 });
    expect(e.annotations.map((a) => a.id)).toEqual(['a2', 'a1', 'a3']);
    expect(e.annotations[2]).toMatchObject({ detached: true, quoted: 'gone' });
    expect(exportToMarkdown(e)).toContain('· open · detached');
  });

  it('fences quotes that contain backticks with a longer fence', () => {
    const text = 'a ``` b';
    const a = annotation({ id: 'a1', docId: 'd2', from: 0, to: text.length }, text);
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [a], textOf: () => text, now: 0 }));
    expect(md).toContain('````\na ``` b\n````');
  });

  it('cuts a long quote and says how many lines it left out', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const a = annotation({ id: 'a1', from: 0, to: text.length }, text);
    const e = buildExport({ roomId: 'r', title: 'Lab', documents: DOCS, annotations: [a], textOf: () => text, now: 0 });
    expect(e.annotations[0]?.quoted.split('\n')).toHaveLength(21);
    expect(e.annotations[0]?.quoted).toMatch(/… 10 more lines$/);
    expect(e.annotations[0]).toMatchObject({ lineFrom: 1, lineTo: 30 });
  });

  it('says so when the room has nothing yet', () => {
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Empty', documents: [], annotations: [], textOf: () => undefined, now: 0 }));
    expect(md).toContain('No documents.');
    expect(md).toContain('## Annotations (0)');
  });

  it('formats byte counts exactly, with a binary unit', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1,536 B (1.5 KiB)');
  });
});
