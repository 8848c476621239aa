import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyze } from '../ir/analyze';
import type { DocumentMeta } from './document';
import { buildExport, exportToJson, exportToMarkdown, inertCell } from './export';
import { catalogueGroups, exportCatalogue, MAX_EXPORT_CATALOGUE_SITES, MAX_EXPORT_CATALOGUE_TEXT_BYTES } from './export-catalogue';

const read = (path: string): string => readFileSync(new URL(`../../../test/fixtures/${path}`, import.meta.url), 'utf8');
const doc = (id: string, kind: DocumentMeta['kind'], over: Partial<DocumentMeta> = {}): DocumentMeta => ({ id, title: `${id}.txt`, kind, bytes: 1, sha256: id, createdAt: 0, ...over });

describe('a catalogue in the export', () => {
  const texts = new Map([
    ['j', read('diff/sharded_constraint/jaxpr.txt')],
    ['s', read('diff/sharded_constraint/stablehlo-debug.mlir')],
    ['h', read('diff/sharded_constraint/hlo-opt.txt')],
  ]);
  const kinds = { j: 'jaxpr', s: 'stablehlo', h: 'hlo-opt' } as const;
  const list = (['j', 's', 'h'] as const).map((id) => doc(id, kinds[id], { captureId: 'c1', bytes: texts.get(id)?.length ?? 0, title: id === 'h' ? 'opt <img src=x onerror=alert(1)>.txt' : `${id}.txt` }));
  const analyses = new Map([...texts].map(([id, t]) => [id, analyze(t, kinds[id as keyof typeof kinds])]));
  const src = { analysisOf: (d: DocumentMeta) => analyses.get(d.id), textOf: (d: DocumentMeta) => texts.get(d.id), escape: inertCell };

  it("catalogues a capture's three layers: the constraint, the all-gather and the shardings, as inert text", () => {
    const [g] = catalogueGroups(list);
    expect(g?.group.label).toBe('capture #1');
    const x = exportCatalogue(g!.group, g!.docs, src);
    expect(Object.keys(x.documents)).toEqual(['jaxpr', 'stablehlo', 'hlo-opt']);
    expect(x.entries.find((e) => e.label === 'sharding-constraint')?.layers.stablehlo?.sites.map((s) => s.line)).toEqual([24]);
    expect(x.entries.find((e) => e.label === 'all-gather')?.layers['hlo-opt']?.bytes).toBe(4096);
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Lab', documents: list, annotations: [], textOf: () => undefined, now: 0, catalogues: [x] }));
    expect(md).toContain('## Catalogues (1)\n\n### Catalogue: capture #1\n\nFrom jaxpr j.txt · StableHLO s.txt · optimized HLO opt &lt;img src=x onerror=alert(1)&gt;.txt.\n\n#### lower() vs compile()');
    expect(md).toContain('| sharding | #sdy.sharding&lt;@mesh, \\[{"data"}, {}\\]&gt; | 8,192 |  | 2 (line 5) |  |');
    expect(md).not.toContain('<img');
    expect(md).not.toMatch(/<[@=\[]/);
    const json = exportToJson(buildExport({ roomId: 'r', title: 'Lab', documents: list, annotations: [], textOf: () => undefined, now: 0, catalogues: [x] }));
    expect(json).not.toMatch(/[<>]/);
    expect(JSON.parse(json).catalogues[0].card.layers.map((l: { layer: string }) => l.layer)).toEqual(['jaxpr', 'stablehlo', 'hlo-opt']);
  });

  it('catalogues a text over the limit, or one not stored, from its analysis alone, and says so; a layer with no analysis is named', () => {
    const big = list.map((d) => (d.id === 'h' ? { ...d, bytes: MAX_EXPORT_CATALOGUE_TEXT_BYTES + 1 } : d));
    const [g] = catalogueGroups(big);
    const read: string[] = [];
    const x = exportCatalogue(g!.group, g!.docs, { ...src, textOf: (d) => (read.push(d.id), d.id === 's' ? undefined : texts.get(d.id)), analysisOf: (d) => (d.id === 'j' ? undefined : analyses.get(d.id)) });
    expect(read).toEqual(['s']);
    expect(x.withoutText).toEqual(['s.txt', 'opt <img src=x onerror=alert(1)>.txt']);
    expect(x.unanalysed).toEqual(['j.txt']);
    // Without texts no sharding attribute is listed; the ops still are.
    expect(x.entries.filter((e) => e.category === 'sharding').map((e) => e.label)).toEqual(['sharding-constraint']);
    const md = exportToMarkdown(buildExport({ roomId: 'r', title: 'Lab', documents: big, annotations: [], textOf: () => undefined, now: 0, catalogues: [x] }));
    expect(md).toContain('without the text (casts name only the dtype cast to, shardings carried as attributes are not listed): s.txt; opt &lt;img src=x onerror=alert(1)&gt;.txt.');
    expect(md).toContain('Not catalogued, no analysis stored: j.txt.');
  });

  it(`keeps at most ${MAX_EXPORT_CATALOGUE_SITES} sites per entry and layer in the JSON, and the whole count and bytes`, () => {
    // 250 converts of one s32[2] parameter to f32[2], then a tuple of them.
    const n = 250;
    const converts = Array.from({ length: n }, (_, i) => `  %c${i} = f32[2]{0} convert(s32[2]{0} %p)`);
    const hlo = ['HloModule m', '', 'ENTRY %e (p: s32[2]) -> f32[2] {', '  %p = s32[2]{0} parameter(0)', ...converts, `  ROOT %r = f32[2]{0} add(f32[2]{0} %c0, f32[2]{0} %c1)`, '}', ''].join('\n');
    const d = doc('t', 'hlo', { bytes: hlo.length });
    const [g] = catalogueGroups([d]);
    const a = analyze(hlo, 'hlo');
    const x = exportCatalogue(g!.group, g!.docs, { analysisOf: () => a, textOf: () => hlo, escape: inertCell });
    const cast = x.entries.find((e) => e.category === 'cast')?.layers.hlo;
    expect([cast?.count, cast?.bytes, cast?.sites.length, cast?.sites.at(-1)?.line]).toEqual([n, n * 8, MAX_EXPORT_CATALOGUE_SITES, 4 + MAX_EXPORT_CATALOGUE_SITES]);
    expect(x.markdown).toContain(`| cast | s32 → f32 | 2,000 | 250 (lines 5, 6, 7, 8, 9, 10, 11, 12, …) |`);
  });
});
