import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '../../model/document';
import { analyze } from '../analyze';
import { catalogueAgainst } from './against';
import { layerCard } from './card';
import { catalogue, REMAT_LABELS } from './catalogue';
import { catalogueMarkdown } from './markdown';
import { CatalogueCategory, type CatalogueEntry, type LayerIndex } from './types';

const read = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8');
const layer = (path: string, kind: DocumentKind): LayerIndex => {
  const text = read(path);
  return { layer: kind as LayerIndex['layer'], index: analyze(text, kind).index, text };
};
const train = (): LayerIndex[] => [
  layer('joins/train/hlo-opt.txt', DocumentKind.hloOpt),
  layer('joins/train/jaxpr.txt', DocumentKind.jaxpr),
  layer('joins/train/stablehlo-debug.mlir', DocumentKind.stablehlo),
];
const entry = (es: readonly CatalogueEntry[], category: string, label: string) => es.find((e) => e.category === category && e.label === label);
/** Per layer: count, bytes and lines. */
const summary = (e: CatalogueEntry | undefined) =>
  Object.fromEntries(Object.entries(e?.layers ?? {}).map(([l, o]) => [l, [o.count, o.bytes, o.sites.map((s) => s.line)]]));

describe('catalogue of a remat’d, scanned bf16 program in three layers', () => {
  const es = catalogue(train());

  it('lists the casts by source and target dtype with their count, bytes and lines in every layer', () => {
    // jaxpr: `convert_element_type[new_dtype=bfloat16]` at lines 2 (bf16[2,8,32]), 4 ([32,32]), 28 ([32,32]),
    // 35 ([2,8,32]), 51 ([2,8,32]), 56 ([32,32]); to float32 at 37 ([32,32]), 39 ([2,8,32]). StableHLO
    // alternates tensor<2x8x32xbf16> and tensor<32x32xbf16>. Optimized HLO: bf16 converts at 80
    // (bf16[1,32,32]), 86 ([2,8,32]), 142 ([32,32]), 175 ([16,32]), 201 ([32,32]), 212 ([2,8,32]).
    expect(summary(entry(es, 'cast', 'f32 → bf16'))).toEqual({
      jaxpr: [6, 3 * 1024 + 3 * 2048, [2, 4, 28, 35, 51, 56]],
      stablehlo: [6, 3 * 1024 + 3 * 2048, [62, 63, 86, 87, 100, 104]],
      'hlo-opt': [6, 2048 + 1024 + 2048 + 1024 + 2048 + 1024, [80, 86, 142, 175, 201, 212]],
    });
    expect(summary(entry(es, 'cast', 'bf16 → f32'))).toEqual({
      jaxpr: [2, 4096 + 2048, [37, 39]],
      stablehlo: [4, 2 * 4096 + 2 * 2048, [97, 102, 105, 106]],
      'hlo-opt': [4, 12288, [143, 169, 176, 228]],
    });
    // StableHLO also converts f32 to f32: `%10 = stablehlo.convert %9 : tensor<2x8x32xf32>` (line 96), and `%15` the same (101).
    expect(summary(entry(es, 'cast', 'f32 → f32'))).toEqual({ stablehlo: [2, 2 * 2048, [96, 101]] });
  });

  it('says only the dtype cast to when the text is not given', () => {
    const bare = catalogue(train().map(({ layer: l, index }) => ({ layer: l, index })));
    expect(bare.filter((e) => e.category === 'cast').map((e) => [e.label, e.layers.jaxpr?.count, e.layers.stablehlo?.count, e.layers['hlo-opt']?.count])).toEqual([
      ['→ bf16', 6, 6, 6],
      ['→ f32', 2, 6, 4],
    ]);
  });

  it('finds the checkpoint: the remat2 equation, its recomputed ops, and the barrier it lowers to', () => {
    expect(entry(es, 'remat', REMAT_LABELS.checkpointed)?.layers.jaxpr?.sites).toEqual([expect.objectContaining({ line: 90, op: 'remat2', name: 'bo,bp' })]);
    expect(summary(entry(es, 'remat', REMAT_LABELS.recomputed)).jaxpr?.[2]).toEqual([2, 4, 6, 11, 13]);
    expect(entry(es, 'remat', REMAT_LABELS.recomputed)?.layers['hlo-opt']?.count).toBe(15);
    expect(summary(entry(es, 'barrier', 'optimization barrier'))).toEqual({ stablehlo: [1, 8192, [85]] });
  });

  it('orders entries by category and has no collectives, custom calls or host transfers', () => {
    expect(es.map((e) => e.category)).toEqual(['remat', 'remat', 'barrier', 'cast', 'cast', 'cast']);
  });

  it('cards the layers in lowering order with ops by category, fusions by kind and size ratios', () => {
    const card = layerCard(train());
    expect(card.layers.map((l) => [l.layer, l.lines, l.bytes, l.ops, l.fusions])).toEqual([
      ['jaxpr', 112, 7653, 31, 0],
      ['stablehlo', 198, 14495, 79, 0],
      ['hlo-opt', 326, 29945, 157, 25],
    ]);
    const hlo = card.layers[2];
    expect(hlo?.fusionKinds).toEqual({ kLoop: 21, kCustom: 4 });
    expect(hlo?.opsByCategory).toMatchObject({ matmul: 6, cast: 10, 'control flow': 2 });
    expect(card.layers[0]?.opsByCategory).toMatchObject({ matmul: 6, cast: 8, 'control flow': 3 });
    expect(hlo?.linesRatio).toBeCloseTo(326 / 112, 6);
    expect(hlo?.bytesRatio).toBeCloseTo(29945 / 7653, 6);
  });
});

describe('catalogue of production modules', () => {
  it('counts an all-reduce with its tuple bytes and the converts around it', () => {
    const es = catalogue([layer('catalogue/all-reduce.hlo', DocumentKind.hlo)]);
    // `%all-reduce.19 = (s32[8]{0}, s32[]) all-reduce(…)` at line 26: 32 + 4 bytes.
    expect(summary(entry(es, 'collective', 'all-reduce'))).toEqual({ hlo: [1, 36, [26]] });
    expect(summary(entry(es, 'cast', 'f32 → s32'))).toEqual({ hlo: [1, 4, [22]] });
    expect(summary(entry(es, 'cast', 's32 → f32'))).toEqual({ hlo: [1, 4, [28]] });
    expect(layerCard([layer('catalogue/all-reduce.hlo', DocumentKind.hlo)]).layers[0]?.collectives).toBe(1);
  });

  it('counts an async collective once, at its start', () => {
    const es = catalogue([layer('catalogue/all-gather-async.hlo', DocumentKind.hloOpt)]);
    expect(es.map((e) => [e.category, e.label, e.layers['hlo-opt']?.sites.map((s) => s.op)])).toEqual([['collective', 'all-gather', ['all-gather-start']]]);
  });

  it('names host transfers and a Sharding custom call as what they are, not as kernels', () => {
    const host = catalogue([layer('catalogue/send-recv.hlo', DocumentKind.hlo)]);
    expect(host.map((e) => [e.category, e.label, e.layers.hlo?.sites[0]?.line])).toEqual([
      ['host', 'recv', 5],
      ['host', 'send', 8],
    ]);
    const sharding = catalogue([layer('catalogue/sharding.hlo', DocumentKind.hlo)]);
    expect(sharding.map((e) => [e.category, e.label, e.layers.hlo?.count])).toEqual([['sharding', 'Sharding', 1]]);
  });

  it('finds a Shardy sharding constraint, the converts and the FFI custom call of a StableHLO module', () => {
    const es = catalogue([layer('catalogue/threefry-shardy.mlir', DocumentKind.stablehlo)]);
    // Line 9: `sdy.sharding_constraint %arg0 … : tensor<2xui32>`; lines 17-18: `stablehlo.convert` of
    // `%arg1: tensor<f32>` and `%arg2: tensor<f32>` to tensor<f32>; line 52: `%4:2 = stablehlo.custom_call @hip_threefry2x32_ffi`, two tensor<2xui32>
    // results, named by its target.
    expect(es.map((e) => [e.category, e.label, ...(summary(e).stablehlo ?? [])])).toEqual([
      ['sharding', 'sharding-constraint', 1, 8, [9]],
      ['cast', 'f32 → f32', 2, 8, [17, 18]],
      ['custom-call', 'hip_threefry2x32_ffi', 1, 32, [52]],
    ]);
  });

  it('finds a GSPMD sharding constraint, a StableHLO custom call to Sharding, with or without the text', () => {
    const l = layer('catalogue/gspmd-constraint.mlir', DocumentKind.stablehlo);
    // Line 5: `%1 = stablehlo.custom_call @Sharding(%0) … -> tensor<8x4xbf16>` between casts at lines 4 and 6.
    expect(catalogue([l]).map((e) => [e.category, e.label, ...(summary(e).stablehlo ?? [])])).toEqual([
      ['sharding', 'Sharding', 1, 64, [5]],
      ['cast', 'bf16 → f32', 1, 128, [6]],
      ['cast', 'f32 → bf16', 1, 64, [4]],
    ]);
    // The index alone: the primitive its name stack ends in (`jit(f)/sharding_constraint`).
    expect(catalogue([{ layer: l.layer, index: l.index }])[0]).toMatchObject({ category: 'sharding', label: 'sharding_constraint' });
  });

  it('names a StableHLO custom call placing a value in host memory as a host transfer, by its target', () => {
    const l = layer('catalogue/placement-shardy.mlir', DocumentKind.stablehlo);
    // Line 7: `%1 = stablehlo.custom_call @annotate_device_placement(%0) … -> tensor<1xf32>`.
    expect(catalogue([l]).map((e) => [e.category, e.label, e.layers.stablehlo?.sites[0]?.line, e.layers.stablehlo?.bytes])).toEqual([[CatalogueCategory.host, 'annotate_device_placement', 7, 4]]);
    // Without the text the index alone does not know the target.
    expect(catalogue([{ layer: l.layer, index: l.index }]).map((e) => [e.category, e.label])).toEqual([[CatalogueCategory.customCall, 'custom-call']]);
  });
});

describe('catalogue against another module', () => {
  const remat = catalogue([layer('diff/mlp_remat/hlo-opt.txt', DocumentKind.hloOpt)]);
  const plain = catalogue([layer('diff/mlp/hlo-opt.txt', DocumentKind.hloOpt)]);

  it('says what the checkpointed MLP has that the plain one lacks', () => {
    const c = catalogueAgainst(remat, plain);
    expect(c.onlyHere.map((e) => [e.label, e.layers['hlo-opt']?.count])).toEqual([
      [REMAT_LABELS.checkpointed, 30],
      [REMAT_LABELS.recomputed, 22],
    ]);
    expect(c.onlyThere).toEqual([]);
    expect(catalogueAgainst(plain, remat).onlyThere).toEqual(c.onlyHere);
  });

  it('reports entries both have in different counts', () => {
    const train3 = catalogue(train());
    const c = catalogueAgainst(train3, remat);
    expect(c.changed).toEqual([
      { category: 'remat', label: REMAT_LABELS.checkpointed, here: 28, there: 30 },
      { category: 'remat', label: REMAT_LABELS.recomputed, here: 15, there: 22 },
    ]);
    expect(c.onlyHere.map((e) => e.label)).toEqual(['optimization barrier', 'bf16 → f32', 'f32 → bf16', 'f32 → f32']);
  });
});

describe('catalogueMarkdown', () => {
  it('writes the card, the operators with lines per layer, and what the other module lacks', () => {
    const layers = train();
    const es = catalogue(layers);
    const md = catalogueMarkdown('train | grads', layerCard(layers), es, { title: 'mlp', comparison: catalogueAgainst(es, catalogue([layer('diff/mlp/hlo-opt.txt', DocumentKind.hloOpt)])) });
    expect(md.split('\n').slice(0, 1)).toEqual(['# Catalogue: train \\| grads']);
    expect(md).toContain('| optimized HLO | 326 | 29,945 | 2.91 | 3.91 | 157 |');
    expect(md).toContain('(kLoop 21, kCustom 4)');
    expect(md).toContain('| cast | f32 → bf16 | 9,216 | 6 (lines 2, 4, 28, 35, 51, 56) | 6 (lines 62, 63, 86, 87, 100, 104) | 6 (lines 80, 86, 142, 175, 201, 212) |');
    expect(md).toContain('Only in mlp:\n- nothing');
    expect(md).toContain('- cast: f32 → bf16 (6)');
    // Every table row has as many cells as its header.
    for (const table of md.split('\n\n').filter((b) => b.startsWith('|'))) {
      const widths = table.split('\n').filter(Boolean).map((r) => r.replace(/\\\|/g, '').split('|').length);
      expect(new Set(widths).size).toBe(1);
    }
  });

  it('says so when there is nothing to catalogue, and never throws on text that is no program', () => {
    for (const text of ['', 'garbage (((', 'HloModule m\nENTRY e {\n  %a = f32[ parameter(', '%0 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<']) {
      const layers = [DocumentKind.jaxpr, DocumentKind.stablehlo, DocumentKind.hlo].map((kind) => ({ layer: kind as LayerIndex['layer'], index: analyze(text, kind).index, text }));
      const es = catalogue(layers);
      expect(() => catalogueMarkdown('x', layerCard(layers), es)).not.toThrow();
    }
    expect(catalogueMarkdown('empty', layerCard([]), [])).toContain('Nothing to catalogue.');
  });
});
