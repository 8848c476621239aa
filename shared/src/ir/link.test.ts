import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexHlo } from './hlo/index';
import { indexJaxpr } from './jaxpr/index';
import { lacksDebugInfo, linkLayers, mappingToMarkdown } from './link';
import { indexStablehlo } from './stablehlo/index';
import type { Analysis, LinkedOp, MappingRow } from './types';

const fixture = (program: string, file: string): string => readFileSync(new URL(`../../../test/fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');

function layers(program: string): { jaxpr: Analysis; stablehlo: Analysis; hlo: Analysis; rows: MappingRow[] } {
  const jaxpr = indexJaxpr(fixture(program, 'jaxpr.txt'));
  const stablehlo = indexStablehlo(fixture(program, 'stablehlo-debug.mlir'));
  const hlo = indexHlo(fixture(program, 'hlo-opt.txt'), 'hlo-opt');
  return { jaxpr, stablehlo, hlo, rows: linkLayers(jaxpr, stablehlo, hlo) };
}

/** The printed type of an op's (first) result in its layer. */
function typeOf(a: Analysis, op: LinkedOp): string | undefined {
  return a.index.values.find((v) => v.name === op.name.split(',')[0] && v.scope === op.scope)?.type;
}

describe('linkLayers', () => {
  it('gives one row per jaxpr equation, in text order', () => {
    const { jaxpr, rows } = layers('mlp');
    expect(rows.map((r) => r.equation)).toEqual([...jaxpr.index.keys].sort((a, b) => a.from - b.from).map((k) => k.name));
    expect(rows.map((r) => r.primitive)).toEqual(['dot_general', 'broadcast_in_dim', 'add', 'custom_jvp_call', 'jit', 'max', 'convert_element_type', 'reduce_sum', 'div', 'convert_element_type']);
  });

  it("joins the MLP's dot_general to the StableHLO dot_general and the HLO dot (or the fusion holding it)", () => {
    const { hlo, rows } = layers('mlp');
    const dot = rows.find((r) => r.primitive === 'dot_general');
    expect(dot?.equation).toBe('d');
    expect(dot?.stablehlo.map((o) => o.op)).toEqual(['stablehlo.dot_general']);
    const hloDot = dot?.hlo.find((o) => o.op === 'dot');
    expect(hloDot).toBeDefined();
    expect(typeOf(hlo, hloDot as LinkedOp)).toMatch(/^(f32|bf16)\[32,128\]/);
    if (hloDot?.fusion) expect(hlo.index.fusions.some((f) => f.name === hloDot.fusion && f.calls === hloDot.scope)).toBe(true);
    // Nothing else from another primitive lands in the dot's row.
    expect(dot?.hlo.every((o) => o.op === 'dot' || o.op === 'fusion')).toBe(true);
  });

  it("joins the MLP's add and relu's max to their StableHLO and HLO ops", () => {
    const { rows } = layers('mlp');
    const add = rows.find((r) => r.primitive === 'add');
    expect(add?.stablehlo.map((o) => o.op)).toContain('stablehlo.add');
    expect(add?.hlo.map((o) => o.op)).toContain('add');
    const max = rows.find((r) => r.primitive === 'max');
    expect(max?.source.opName).toBe('jit(relu)/max');
    expect(max?.stablehlo.map((o) => o.op)).toContain('stablehlo.maximum');
    expect(max?.hlo.map((o) => o.op)).toContain('maximum');
  });

  it("joins attention's two dot_generals to the right StableHLO ops and HLO dots by shape and source", () => {
    const { stablehlo, hlo, rows } = layers('attention');
    const dots = rows.filter((r) => r.primitive === 'dot_general');
    expect(dots).toHaveLength(2);
    const [scores, out] = dots;
    expect(scores?.stablehlo.map((o) => [o.op, typeOf(stablehlo, o)])).toEqual([['stablehlo.dot_general', 'tensor<8192x8192xbf16>']]);
    expect(out?.stablehlo.map((o) => [o.op, typeOf(stablehlo, o)])).toEqual([['stablehlo.dot_general', 'tensor<8192x128xbf16>']]);
    const scoresDot = scores?.hlo.filter((o) => o.op === 'dot') ?? [];
    const outDot = out?.hlo.filter((o) => o.op === 'dot') ?? [];
    expect(scoresDot).toHaveLength(1);
    expect(outDot).toHaveLength(1);
    expect(typeOf(hlo, scoresDot[0] as LinkedOp)).toMatch(/^(f32|bf16)\[8192,8192\]/);
    expect(typeOf(hlo, outDot[0] as LinkedOp)).toMatch(/^(f32|bf16)\[8192,128\]/);
    expect(scores?.source.line).not.toBe(out?.source.line);
  });

  it('links the scan, convolution, custom_jvp and sharded fixtures with every StableHLO dot or convolution in some row', () => {
    for (const p of ['scan', 'conv', 'custom_jvp', 'sharded']) {
      const { stablehlo, rows } = layers(p);
      const linked = new Set(rows.flatMap((r) => r.stablehlo.map((o) => `${o.scope} ${o.name}`)));
      for (const k of stablehlo.index.keys) {
        if (/dot_general|convolution/.test(k.op)) expect(linked.has(`${k.scope} ${k.name}`), `${p}: ${k.op} ${k.name}`).toBe(true);
      }
    }
  });

  it('prints the mapping as a Markdown table with one line per row', () => {
    const { rows } = layers('mlp');
    const md = mappingToMarkdown(rows).split('\n');
    expect(md).toHaveLength(rows.length + 2);
    expect(md[0]).toBe('| line | equation | primitive | source | StableHLO | HLO |');
    expect(md.find((l) => l.includes('| dot_general |'))).toMatch(/stablehlo\.dot_general.*\(dot/);
  });

  it('links dumps saved with CRLF line endings the same way', () => {
    const crlf = (f: string): string => fixture('mlp', f).replace(/\n/g, '\r\n');
    const rows = linkLayers(indexJaxpr(crlf('jaxpr.txt')), indexStablehlo(crlf('stablehlo-debug.mlir')), indexHlo(crlf('hlo-opt.txt'), 'hlo-opt'));
    const strip = (r: MappingRow): unknown => [r.equation, r.primitive, r.line, r.stablehlo.map((o) => o.name), r.hlo.map((o) => o.name)];
    expect(rows.map(strip)).toEqual(layers('mlp').rows.map(strip));
  });

  it('keeps a row for every equation when the other layers are empty', () => {
    const { jaxpr } = layers('mlp');
    const empty = indexStablehlo('');
    const rows = linkLayers(jaxpr, empty, indexHlo('', 'hlo-opt'));
    expect(rows).toHaveLength(jaxpr.index.keys.length);
    expect(rows.every((r) => r.stablehlo.length === 0 && r.hlo.length === 0)).toBe(true);
  });
});

describe('lacksDebugInfo', () => {
  it('tells a StableHLO printed without loc(…) from one printed with it, and says nothing of an empty one', () => {
    expect(lacksDebugInfo(indexStablehlo(fixture('mlp', 'stablehlo.mlir')))).toBe(true);
    expect(lacksDebugInfo(indexStablehlo(fixture('mlp', 'stablehlo-debug.mlir')))).toBe(false);
    expect(lacksDebugInfo(indexStablehlo(''))).toBe(false);
  });
});
