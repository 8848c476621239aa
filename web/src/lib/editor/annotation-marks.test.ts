import { describe, expect, it } from 'vitest';
import { EditorState } from '@codemirror/state';
import type { Annotation } from '@seam/shared/model';
import { quoteOf } from '@seam/shared/model';
import { annotationField, annotationsAt, setAnnotations } from './annotation-marks';
import { remoteDecorations } from './remote-selections';

const text = ['%p0 = f32[8] parameter(0)', '%dot.1 = bf16[8192,8192]{1,0} dot(%a, %b)', 'ROOT %t = tuple(%dot.1)'].join('\n');
const author = { id: 'a', name: 'Ada', color: '#000000' };

function ann(id: string, from: number, to: number, over = text): Annotation {
  return { id, docId: 'd', from, to, quote: quoteOf(over, from, to), kind: 'spill', body: '', author, createdAt: 0, resolved: false, replies: [] };
}

function marksOf(list: Annotation[]) {
  const s = EditorState.create({ doc: text, extensions: [annotationField] });
  return s.update({ effects: setAnnotations.of(list) }).state.field(annotationField);
}

describe('annotation marks', () => {
  it('marks anchored annotations inline and once per line in the gutter', () => {
    const dot = text.indexOf('%dot.1');
    const m = marksOf([ann('x', dot, dot + 6), ann('y', dot + 10, dot + 24)]);
    expect(m.detached.size).toBe(0);
    expect(m.marks.size).toBe(2);
    expect(m.glyphs.size).toBe(1);
    expect(annotationsAt(m, dot + 3).map((a) => a.id)).toEqual(['x']);
  });
  it('shows an annotation whose quote no longer matches as detached and never moves it', () => {
    const other = text.replace('%dot.1', '%dot.9');
    const dot = text.indexOf('%dot.1');
    const m = marksOf([ann('gone', dot, dot + 6, other), ann('past-end', text.length - 2, text.length + 5, text + 'xxxxx')]);
    expect([...m.detached].sort()).toEqual(['gone', 'past-end']);
    expect(m.marks.size).toBe(0);
    expect(annotationsAt(m, dot + 1)).toEqual([]);
  });
  it('builds 5,000 marks on a large text in one pass', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `%v.${i} = f32[128]{0} add(%a, %b)`).join('\n');
    const s = EditorState.create({ doc: big, extensions: [annotationField] });
    const list: Annotation[] = [];
    for (let i = 0; i < 5000; i++) {
      const line = s.doc.line(i * 4 + 1);
      list.push(ann(String(i), line.from, line.from + 4, big));
    }
    const m = s.update({ effects: setAnnotations.of(list) }).state.field(annotationField);
    expect(m.marks.size).toBe(5000);
    expect(m.glyphs.size).toBe(5000);
  });
});

describe('remote selections', () => {
  it('draws a range and a caret, and skips positions outside the text', () => {
    const set = remoteDecorations(10, [
      { clientId: 1, name: 'Bo', color: '#ff0000', anchor: 2, head: 6 },
      { clientId: 2, name: 'Cy', color: '#00ff00', anchor: 4, head: 4 },
      { clientId: 3, name: 'Di', color: '#0000ff', anchor: 4, head: 40 },
    ]);
    expect(set.size).toBe(3);
  });
});
