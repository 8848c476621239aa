import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '../../model/document';
import { analyze } from '../analyze';
import { catalogueAgainst } from './against';
import { layerCard } from './card';
import { catalogue, REMAT_LABELS } from './catalogue';
import { catalogueMarkdown } from './markdown';
import { readShardings } from './shardings';
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
/** A module of test/fixtures/diff/ in its three layers. */
const sharded = (name: string): LayerIndex[] => [
  layer(`diff/${name}/jaxpr.txt`, DocumentKind.jaxpr),
  layer(`diff/${name}/stablehlo-debug.mlir`, DocumentKind.stablehlo),
  layer(`diff/${name}/hlo-opt.txt`, DocumentKind.hloOpt),
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
    // Line 7: `%constant = f32[] constant(2.1), sharding={maximal device=0}`, the value sent.
    expect(host.map((e) => [e.category, e.label, e.layers.hlo?.sites[0]?.line])).toEqual([
      ['sharding', '{maximal device=0}', 7],
      ['host', 'recv', 5],
      ['host', 'send', 8],
    ]);
    const sharding = catalogue([layer('catalogue/sharding.hlo', DocumentKind.hlo)]);
    // Line 5: `b = s32[10] custom-call(a), custom_call_target="Sharding", sharding={replicated}`: the call and its sharding.
    expect(sharding.map((e) => [e.category, e.label, e.layers.hlo?.count, e.layers.hlo?.sites[0]?.line])).toEqual([
      ['sharding', 'Sharding', 1, 5],
      ['sharding', '{replicated}', 1, 5],
    ]);
  });

  it('finds a Shardy sharding constraint, the converts and the FFI custom call of a StableHLO module', () => {
    const es = catalogue([layer('catalogue/threefry-shardy.mlir', DocumentKind.stablehlo)]);
    // Line 9: `sdy.sharding_constraint %arg0 … : tensor<2xui32>`; lines 17-18: `stablehlo.convert` of
    // `%arg1: tensor<f32>` and `%arg2: tensor<f32>` to tensor<f32>; line 52: `%4:2 = stablehlo.custom_call @hip_threefry2x32_ffi`, two tensor<2xui32>
    // results, named by its target.
    // Line 5: `sdy.mesh @empty_mesh = <[]>`, the mesh the constraint names.
    expect(es.map((e) => [e.category, e.label, ...(summary(e).stablehlo ?? [])])).toEqual([
      ['sharding', 'sdy.mesh @empty_mesh = <[]>', 1, 0, [5]],
      ['sharding', 'sharding-constraint', 1, 8, [9]],
      ['cast', 'f32 → f32', 2, 8, [17, 18]],
      ['custom-call', 'hip_threefry2x32_ffi', 1, 32, [52]],
    ]);
  });

  it('finds a GSPMD sharding constraint, a StableHLO custom call to Sharding, with or without the text', () => {
    const l = layer('catalogue/gspmd-constraint.mlir', DocumentKind.stablehlo);
    // Line 5: `%1 = stablehlo.custom_call @Sharding(%0) {…, mhlo.sharding = "{replicated}"} … -> tensor<8x4xbf16>`
    // between casts at lines 4 and 6: the call, and the sharding it carries.
    expect(catalogue([l]).map((e) => [e.category, e.label, ...(summary(e).stablehlo ?? [])])).toEqual([
      ['sharding', 'Sharding', 1, 64, [5]],
      ['sharding', '{replicated}', 1, 64, [5]],
      ['cast', 'bf16 → f32', 1, 128, [6]],
      ['cast', 'f32 → bf16', 1, 64, [4]],
    ]);
    // The index alone: the primitive its name stack ends in (`jit(f)/sharding_constraint`).
    expect(catalogue([{ layer: l.layer, index: l.index }])[0]).toMatchObject({ category: 'sharding', label: 'sharding_constraint' });
  });

  it('names a StableHLO custom call placing a value in host memory as a host transfer, by its target', () => {
    const l = layer('catalogue/placement-shardy.mlir', DocumentKind.stablehlo);
    // Line 7: `%1 = stablehlo.custom_call @annotate_device_placement(%0) … -> tensor<1xf32>`.
    // Line 4: `sdy.mesh @mesh = <["a"=1]>`; line 5: both arguments and the result sharded `[{"a"}]`.
    expect(catalogue([l]).map((e) => [e.category, e.label, e.layers.stablehlo?.sites[0]?.line, e.layers.stablehlo?.bytes])).toEqual([
      [CatalogueCategory.sharding, '#sdy.sharding<@mesh, [{"a"}]>', 5, 8],
      [CatalogueCategory.sharding, 'sdy.mesh @mesh = <["a"=1]>', 4, 0],
      [CatalogueCategory.host, 'annotate_device_placement', 7, 4],
    ]);
    // Without the text the index alone does not know the target.
    expect(catalogue([{ layer: l.layer, index: l.index }]).map((e) => [e.category, e.label])).toEqual([[CatalogueCategory.customCall, 'custom-call']]);
  });
});

describe('shardings carried as attributes', () => {
  it('lists each distinct HLO sharding once, on parameters and a tuple, with its count, bytes and lines', () => {
    // Line 4: `%v1 = f32[] parameter(0), sharding={manual}`; line 7: the tuple's `sharding={{manual}, {maximal device=0}, {replicated}}`.
    const es = catalogue([layer('catalogue/sharded-tuple.hlo', DocumentKind.hlo)]);
    expect(es.map((e) => [e.category, e.label, summary(e).hlo, e.layers.hlo?.sites.map((s) => [s.name, s.op])])).toEqual([
      ['sharding', '{manual}', [1, 4, [4]], [['v1', 'parameter']]],
      ['sharding', '{{manual}, {maximal device=0}, {replicated}}', [1, 4 + 12 + 24, [7]], [['tuple', 'tuple']]],
    ]);
  });

  it('reads GSPMD shardings of StableHLO arguments and results, named by what carries them', () => {
    // Line 4: `%arg0 … {mhlo.sharding = "{maximal device=0}"}`, `%arg1` the same, and the result.
    const es = catalogue([layer('catalogue/placement-gspmd.mlir', DocumentKind.stablehlo)]);
    expect(summary(entry(es, 'sharding', '{maximal device=0}'))).toEqual({ stablehlo: [3, 8, [4, 4, 4]] });
    expect(entry(es, 'sharding', '{maximal device=0}')?.layers.stablehlo?.sites.map((s) => [s.name, s.op])).toEqual([['%arg0', 'argument'], ['%arg1', 'argument'], ['result', 'result']]);
  });

  it('lists the Shardy mesh and shardings and the optimized module\'s parameter shardings of a sharded MLP', () => {
    const es = catalogue(sharded('sharded'));
    expect(es.filter((e) => e.category === 'sharding').map((e) => [e.label, summary(e)])).toEqual([
      // stablehlo-debug.mlir line 5: `%arg0: tensor<64x32xf32> {sdy.sharding = …}`, `%arg1`, and the result.
      ['#sdy.sharding<@mesh, [{"data"}, {}]>', { stablehlo: [2, 8192, [5, 5]] }],
      ['#sdy.sharding<@mesh, [{}, {"model"}]>', { stablehlo: [1, 8192, [5]] }],
      ['sdy.mesh @mesh = <["data"=4, "model"=2]>', { stablehlo: [1, 0, [4]] }],
      // hlo-opt.txt lines 62-63: each device's shard of x (f32[16,32]) and of w (f32[32,32]).
      ['{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}', { 'hlo-opt': [1, 4096, [63]] }],
      ['{devices=[4,1,2]<=[8] last_tile_dim_replicate}', { 'hlo-opt': [1, 2048, [62]] }],
    ]);
  });

  it('reads only what is a sharding: a name that contains the word, a bracket left open, a label too long', () => {
    const text = [
      'HloModule m, allow_spmd_sharding_propagation_to_parameters={false}',
      'ENTRY e {',
      '  %a = f32[2]{0} parameter(0), sharding={devices=[2]<=[2]}, metadata={op_name="sharding={x}"}',
      '  %b = f32[2]{0} parameter(1), sharding={devices=[2',
      `  ROOT %c = f32[2]{0} add(%a, %b), sharding={${'{replicated}, '.repeat(60)}}`,
      '}',
    ].join('\n');
    const es = catalogue([{ layer: 'hlo', index: analyze(text, DocumentKind.hlo).index, text }]);
    const labels = es.map((e) => e.label);
    expect(labels).toContain('{devices=[2…');
    expect(labels).toContain('{devices=[2]<=[2]}');
    expect(labels.some((l) => l.startsWith('{{replicated}, ') && l.endsWith('…') && l.length <= 513)).toBe(true);
    expect(labels.some((l) => l.includes('false') || l === '{x}')).toBe(false);
  });

  it('never throws on a dump cut anywhere inside a sharding, and reads no sharding past the cut', () => {
    for (const [path, l] of [['diff/sharded/stablehlo-debug.mlir', 'stablehlo'], ['diff/sharded/hlo-opt.txt', 'hlo-opt'], ['catalogue/placement-gspmd.mlir', 'stablehlo']] as const) {
      const text = read(path);
      for (let at = text.indexOf('sharding'); at >= 0; at = text.indexOf('sharding', at + 1)) {
        for (const cut of [at + 3, at + 9, at + 12, at + 20, at + 40]) {
          const head = text.slice(0, cut);
          for (const s of readShardings(l, head)) expect(s.to).toBeLessThanOrEqual(head.length);
        }
      }
    }
  });
});

describe('catalogue of a sharded MLP with and without with_sharding_constraint', () => {
  const plain = catalogue(sharded('sharded'));
  const constrained = catalogue(sharded('sharded_constraint'));

  it('lists the sharding constraint only on the module that has it, in jaxpr and StableHLO', () => {
    expect(entry(plain, 'sharding', 'sharding-constraint')).toBeUndefined();
    // jaxpr line 23: `l:f32[64,64] = sharding_constraint[…]`; StableHLO line 24: `%14 = sdy.sharding_constraint %13 <@mesh, [{"data"}, {}]>`.
    expect(summary(entry(constrained, 'sharding', 'sharding-constraint'))).toEqual({ jaxpr: [1, 16384, [23]], stablehlo: [1, 16384, [24]] });
  });

  it('catalogued against the plain one: the constraint, and the all-gather XLA added for it, are only here', () => {
    const c = catalogueAgainst(constrained, plain);
    // hlo-opt.txt line 88: `%all-gather = f32[16,64]{0,1} all-gather(%multiply_multiply_fusion)`, 4 KiB per device,
    // and line 52: the partition id converted to index the slice each device keeps of it.
    expect(c.onlyHere.map((e) => [e.category, e.label, summary(e)])).toEqual([
      ['sharding', 'sharding-constraint', { jaxpr: [1, 16384, [23]], stablehlo: [1, 16384, [24]] }],
      ['collective', 'all-gather', { 'hlo-opt': [1, 4096, [88]] }],
      ['cast', 'u32 → s32', { 'hlo-opt': [1, 4, [52]] }],
    ]);
    expect(c.onlyThere).toEqual([]);
    expect(c.changed).toEqual([]);
    // Both keep the all-reduce of the second dot's partial sums (lines 67 and 91).
    expect(summary(entry(plain, 'collective', 'all-reduce'))).toEqual({ 'hlo-opt': [1, 2048, [67]] });
    expect(summary(entry(constrained, 'collective', 'all-reduce'))).toEqual({ 'hlo-opt': [1, 2048, [91]] });
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
