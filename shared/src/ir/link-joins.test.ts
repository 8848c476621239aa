import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from './hlo/index';
import { indexJaxpr } from './jaxpr/index';
import { lacksDebugInfo, linkLayers } from './link';
import { indexStablehlo } from './stablehlo/index';
import type { Analysis, MappingRow } from './types';

/**
 * The joins on real captures written by test/fixtures/joins/regenerate.py (JAX 0.10.2, CPU). The
 * expected pairs were read off the files by hand: each jaxpr `dot_general`, its StableHLO
 * `dot_general` (same dimension numbers, operand and result types) and its HLO `dot` (same
 * contraction after XLA flattened `[2,8,32]` to `[16,32]` and folded transposes).
 */
const fixture = (program: string, file: string): string => readFileSync(new URL(`../../../test/fixtures/joins/${program}/${file}`, import.meta.url), 'utf8');

function layers(program: string): { jaxpr: Analysis; stablehlo: Analysis; hlo: Analysis; rows: MappingRow[] } {
  const jaxpr = indexJaxpr(fixture(program, 'jaxpr.txt'));
  const stablehlo = indexStablehlo(fixture(program, 'stablehlo-debug.mlir'));
  const hlo = indexHlo(fixture(program, 'hlo-opt.txt'), 'hlo-opt');
  return { jaxpr, stablehlo, hlo, rows: linkLayers(jaxpr, stablehlo, hlo) };
}

/** Each row of `primitive` as `scope equation` → its StableHLO ops and HLO instructions of the given opcodes. */
function joined(rows: readonly MappingRow[], primitive: string, shlo: readonly string[], hloOps: readonly string[]): Record<string, { stablehlo: string[]; hlo: string[] }> {
  const out: Record<string, { stablehlo: string[]; hlo: string[] }> = {};
  for (const r of rows) {
    if (r.primitive !== primitive) continue;
    out[`${r.scope} ${r.equation}`] = {
      stablehlo: r.stablehlo.filter((o) => shlo.includes(o.op)).map((o) => `${o.scope} ${o.name}`),
      hlo: r.hlo.filter((o) => hloOps.includes(o.op)).map((o) => o.name),
    };
  }
  return out;
}

describe('linkLayers on a remat’d, scanned, mixed-precision program and its gradient', () => {
  it('joins every dot_general, forward, recomputed and backward, to its own StableHLO dot_general and HLO dot', () => {
    const { rows } = layers('train');
    expect(joined(rows, 'dot_general', ['stablehlo.dot_general'], ['dot'])).toEqual({
      // Recomputed forward dot inside the remat'd block (`checkpoint/rematted_computation/…`), backward scan.
      'jaxpr f': { stablehlo: ['@closed_call_1 %3'], hlo: ['dot.27'] },
      // Weight gradient: XLA folds the following `transpose` into the dot and names it after it.
      'jaxpr l': { stablehlo: ['@closed_call_1 %12'], hlo: ['dot.23'] },
      // Activation gradient: `[2,8,32]·[32,32]ᵀ`, flattened by XLA to `[16,32]`.
      'jaxpr o': { stablehlo: ['@closed_call_1 %17'], hlo: ['dot.26'] },
      // Input projection under jvp, outside the loops.
      'main v': { stablehlo: ['@main %0'], hlo: ['dot.28'] },
      // Forward dot of the scanned block under jvp: not the backward dots that share its source line.
      'main/scan.jaxpr bc': { stablehlo: ['@closed_call %2'], hlo: ['dot.25'] },
      // Input projection's weight gradient, its transpose folded.
      'main bq': { stablehlo: ['@main %9'], hlo: ['dot.11'] },
    });
  });

  it('puts each kCustom fusion that holds a dot in the row of that dot', () => {
    const { rows } = layers('train');
    const fusions = Object.fromEntries(rows.filter((r) => r.primitive === 'dot_general').map((r) => [`${r.scope} ${r.equation}`, r.hlo.filter((o) => o.name.startsWith('ynn_fusion')).map((o) => o.name).sort()]));
    expect(fusions).toEqual({
      'jaxpr f': ['ynn_fusion.2'], 'jaxpr l': [], 'jaxpr o': ['ynn_fusion.1'], 'main v': ['ynn_fusion.3'], 'main/scan.jaxpr bc': ['ynn_fusion'], 'main bq': [],
    });
  });

  it('never joins an op whose name stack carries other transforms than the equation’s', () => {
    const { rows } = layers('train');
    const forward = rows.filter((r) => r.scope !== 'jaxpr' && !(r.source.opName ?? '').includes('transpose('));
    for (const r of forward) for (const o of r.hlo) expect(o.name, `${r.equation} ${r.primitive}`).not.toMatch(/^(dot\.2[3467]|dot\.11|ynn_fusion\.[12])$/);
  });
});

describe('linkLayers on a bf16 MLP’s gradient whose weight and activation gradients share a result shape', () => {
  it('joins each dot_general by which operand runs it contracts, not by the first shape that fits', () => {
    const { rows } = layers('mlp_grad');
    // 4·8 = 32: `bd` ([4,8,64], flattened to [32,64]) and `ba` ([32,64]) read alike by shape alone.
    expect(joined(rows, 'dot_general', ['stablehlo.dot_general'], ['dot'])).toEqual({
      'main f': { stablehlo: ['@main %2'], hlo: ['dot.13'] },
      'main t': { stablehlo: ['@main %23'], hlo: ['dot.12'] },
      'main ba': { stablehlo: ['@main %31'], hlo: ['dot.7'] },
      'main bd': { stablehlo: ['@main %36'], hlo: ['dot.11'] },
      'main bs': { stablehlo: ['@main %56'], hlo: ['dot.6'] },
      'main bv': { stablehlo: ['@main %61'], hlo: ['dot.10'] },
    });
  });
});

describe('linkLayers with two dots on one source line', () => {
  it('tells them apart by the column HLO keeps in its FileLocations', () => {
    const { rows } = layers('two_dots');
    expect(joined(rows, 'dot_general', ['stablehlo.dot_general'], ['dot', 'fusion'])).toEqual({
      'main e': { stablehlo: ['@main %0'], hlo: ['dot_general.1', 'ynn_fusion.1'] },
      'main f': { stablehlo: ['@main %1'], hlo: ['dot_general.0', 'ynn_fusion'] },
    });
  });
});

describe('linkLayers with one jitted function called twice from one line', () => {
  it('tells the calls apart by the width each dot contracts, not by text order', () => {
    const { rows } = layers('repeated_call');
    // The HLO prints the second call's dot (`[8,24]·[24,24]`) first.
    expect(joined(rows, 'dot_general', ['stablehlo.dot_general'], ['dot'])).toEqual({
      'main/jit(inner).jaxpr e': { stablehlo: ['@inner %0'], hlo: ['dot_general.5'] },
      'main/jit(inner).jaxpr g': { stablehlo: ['@inner_0 %0'], hlo: ['dot_general.4'] },
    });
  });
});

describe('linkLayers with reductions', () => {
  it('keeps a reducer computation’s scalar add out of the reduce_sum row', () => {
    const { rows } = layers('reducers');
    const sum = rows.find((r) => r.primitive === 'reduce_sum');
    expect(sum?.stablehlo.map((o) => `${o.op} ${o.name}`)).toEqual(['stablehlo.constant %cst', 'stablehlo.reduce %0']);
    expect(sum?.hlo.map((o) => o.name).sort()).toEqual(['reduce_sum.0', 'wrapped_reduce']);
  });

  it('keeps the ops of a StableHLO reduce region out of every row', () => {
    const jaxpr = indexJaxpr('{ lambda ; a:f32[8,16]. let\n    b:f32[8] = reduce_sum[axes=(1,) out_sharding=None] a # p.py:3:11 (f)\n                                                         # []\n  in (b,) }\n');
    const stablehlo = indexStablehlo([
      'module @jit_f {',
      '  func.func public @main(%arg0: tensor<8x16xf32>) -> tensor<8xf32> {',
      '    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc2)',
      '    %0 = "stablehlo.reduce"(%arg0, %cst) ({',
      '    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):',
      '      %1 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc2)',
      '      "stablehlo.return"(%1) : (tensor<f32>) -> () loc(#loc2)',
      '    }) {dimensions = array<i64: 1>} : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32> loc(#loc2)',
      '    return %0 : tensor<8xf32>',
      '  }',
      '}',
      '#loc1 = loc("p.py":3:11 to :29)',
      '#loc2 = loc("jit(f)/reduce_sum"(#loc1))',
    ].join('\n'));
    const [row] = linkLayers(jaxpr, stablehlo, indexHlo('', 'hlo-opt'));
    expect(row?.stablehlo.map((o) => `${o.op} ${o.name}`)).toEqual(['stablehlo.constant %cst', 'stablehlo.reduce %0']);
  });
});

describe('lacksDebugInfo per layer', () => {
  it('tells a jaxpr printed without source info, and an HLO without metadata, from the captures', () => {
    const jaxprText = fixture('two_dots', 'jaxpr.txt');
    expect(lacksDebugInfo(indexJaxpr(jaxprText))).toBe(false);
    expect(lacksDebugInfo(indexJaxpr(jaxprText.replace(/\s*#[^\n]*/g, '')))).toBe(true);
    const hloText = fixture('two_dots', 'hlo-opt.txt');
    expect(lacksDebugInfo(indexHlo(hloText, 'hlo-opt'))).toBe(false);
    expect(lacksDebugInfo(indexHlo(hloText.replace(/, metadata=\{[^}]*\}/g, ''), 'hlo-opt'))).toBe(true);
  });
});
