import * as Y from 'yjs';
import { analyze } from '@seam/shared/ir';
import { readAnnotations } from '@seam/shared/model';
import { describe, expect, it } from 'vitest';
import attentionHlo from '../../../../test/fixtures/ir/attention/hlo-opt.txt?raw';
import { markFusion, markSpill } from './mark-analysis';

const author = { id: 'u', name: 'Ada', color: '#123456' };

describe('marking from the analysis', () => {
  const index = analyze(attentionHlo, 'hlo-opt').index;

  it('marks the top spill of naive attention with its instruction, size, traffic and quoted line', () => {
    const doc = new Y.Doc();
    const s = index.spills[0]!;
    expect(markSpill(doc, 'd1', attentionHlo, s, author)).not.toBeNull();
    const [a] = readAnnotations(doc);
    expect(a).toMatchObject({ kind: 'spill', docId: 'd1', instruction: s.producer, bytes: s.bytes, traffic: s.traffic });
    expect(a!.quote.exact).toContain(`${s.producer} = ${s.type} fusion(`);
    expect(a!.body).toContain('268,435,456 B (256 MiB)');
  });

  it('marks a fusion with its kind and output bytes', () => {
    const doc = new Y.Doc();
    const f = index.fusions[0]!;
    markFusion(doc, 'd1', attentionHlo, f, author);
    const [a] = readAnnotations(doc);
    expect(a).toMatchObject({ kind: 'fusion', instruction: f.name, bytes: f.outputBytes });
    expect(a!.body).toContain(f.kind);
  });

  it('refuses a range that is not in the text, leaving the room unchanged', () => {
    const doc = new Y.Doc();
    expect(markSpill(doc, 'd1', 'short', index.spills[0]!, author)).toBeNull();
    expect(readAnnotations(doc)).toEqual([]);
  });
});
