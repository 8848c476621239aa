import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arrayBytes } from '../shape';
import { indexHlo } from './index';

const fixture = (program: string, file: string) => readFileSync(new URL(`../../../../test/fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');

/** Bytes of an array type as printed, worked out here from its text: `f32[8192,8192]{1,0}`. */
function bytesOfPrinted(type: string): number {
  const m = /^(\w+)\[([\d,]*)\]/.exec(type);
  if (!m?.[1]) throw new Error(`not an array type: ${type}`);
  return arrayBytes(m[1], m[2] ? m[2].split(',').map(Number) : []);
}

/** Instructions of the entry computation that take `%name` as an operand, read from the text. */
function readersInEntry(text: string, name: string): string[] {
  const entry = text.slice(text.indexOf('\nENTRY'));
  const re = new RegExp(`^\\s*(?:ROOT )?%([\\w.-]+) = [^\\n]*\\(([^\\n)]*%${name.replace(/[.-]/g, '\\$&')}[,)][^\\n]*)`, 'gm');
  return [...entry.matchAll(re)].map((m) => m[1] ?? '');
}

describe('indexHlo on the naive attention dump (S=8192, D=128, bf16 inputs)', () => {
  const text = fixture('attention', 'hlo-opt.txt');
  const { index, diagnostics } = indexHlo(text, 'hlo-opt');

  it('parses the compiled dump without diagnostics', () => {
    expect(diagnostics).toEqual([]);
  });

  it('ranks an 8192x8192 softmax matrix first, sized from the dtype the dump gives it', () => {
    const top = index.spills[0];
    expect(top?.type).toMatch(/^\w+\[8192,8192\]/);
    expect(top?.bytes).toBe(bytesOfPrinted(top?.type ?? ''));
    // The CPU backend keeps the scores in f32 here: 8192 * 8192 * 4.
    expect(top?.bytes).toBe(268_435_456);
    expect(top?.producer).toBe('convert_exponential_fusion');
    expect(new Set(top?.consumers)).toEqual(new Set(readersInEntry(text, 'convert_exponential_fusion')));
    expect(top?.consumers).toHaveLength(2);
    expect(top?.traffic).toBe(top!.bytes * 3);
  });

  it('sizes the raw QK^T score matrix at the dot that writes it, with one write and one read', () => {
    const scores = index.spills.find((s) => s.producer === 'dot_general.2');
    expect(scores).toMatchObject({ type: 'f32[8192,8192]{1,0}', bytes: 268_435_456, consumers: ['wrapped_convert.2'], traffic: 536_870_912 });
    expect(index.spills.indexOf(scores!)).toBeLessThan(3);
  });

  it('keeps spills ranked by traffic and every consumer a kernel of the entry', () => {
    for (let i = 1; i < index.spills.length; i++) expect(index.spills[i - 1]!.traffic).toBeGreaterThanOrEqual(index.spills[i]!.traffic);
    for (const s of index.spills) expect(s.traffic).toBe(s.bytes * (1 + s.consumers.length));
    expect(index.spills.some((s) => ['q.1', 'k.1', 'v.1', 'constant.4', 'constant.5'].includes(s.producer))).toBe(false);
  });

  it('decodes both dots: QK^T contracts the head dim of both operands', () => {
    expect(index.dots.map((d) => [d.name, d.einsum, d.lhs, d.rhs])).toEqual([
      ['dot_general.2', 'ij,kj->ik', [8192, 128], [8192, 128]],
      ['dot_general.3', 'ij,jk->ik', [8192, 8192], [8192, 128]],
    ]);
  });
});

describe('indexHlo on the MLP dump', () => {
  const text = fixture('mlp', 'hlo-opt.txt');
  const { index, diagnostics } = indexHlo(text, 'hlo-opt');

  it('gives the fused dot its name stack, its source line from the stack-frame tables and its fusion', () => {
    expect(diagnostics).toEqual([]);
    const key = index.keys.find((k) => k.op === 'dot');
    expect(key).toMatchObject({ name: 'dot_general.0', scope: 'fused_computation', fusion: 'ynn_fusion', source: { opName: 'jit(mlp)/dot_general', file: 'program.py', line: 5 } });
    expect(index.dots[0]?.einsum).toBe('ij,jk->ik');
  });

  it('outlines the module with fused computations marked by their caller’s kind', () => {
    const module = index.outline[0];
    expect(module).toMatchObject({ kind: 'module', name: 'jit_mlp' });
    const fused = module?.children?.find((c) => c.name === 'fused_computation');
    expect(fused).toMatchObject({ kind: 'fusion', fusionKind: 'kCustom' });
    expect(text.split('\n')[(fused?.lineFrom ?? 0) - 1]).toMatch(/^%fused_computation /);
    expect(text.split('\n')[(fused?.lineTo ?? 0) - 1]).toBe('}');
    expect(module?.children?.find((c) => c.isEntry)?.name).toBe('main.3');
  });

  it('sizes every value and sums fusion inputs from their operands', () => {
    expect(index.values.find((v) => v.name === 'w.1')).toMatchObject({ type: 'bf16[64,128]{1,0}', bytes: 16_384 });
    const f = index.fusions.find((x) => x.name === 'ynn_fusion');
    expect(f).toMatchObject({ kind: 'kCustom', calls: 'fused_computation', outputBytes: 128 });
    expect(f?.inputBytes).toBe(512 + 8192 + 16_384);
    expect(f?.fusedOps).toBe(text.slice(text.indexOf('%fused_computation ('), text.indexOf('\n}\n', text.indexOf('%fused_computation ('))).split('\n').filter((l) => / = /.test(l) && !/parameter\(/.test(l)).length);
  });
});

describe('indexHlo on the scan dump', () => {
  const { index, diagnostics } = indexHlo(fixture('scan', 'hlo-opt.txt'), 'hlo-opt');

  it('follows a loop-carried value through the while body parameter to the kernel that wrote it last iteration', () => {
    expect(diagnostics).toEqual([]);
    const carried = index.spills.find((s) => s.producer === 'add_tanh_fusion');
    expect(new Set(carried?.consumers)).toEqual(new Set(['dot', 'bitcast_dynamic-update-slice_fusion']));
    expect(carried?.scope).toBe('region_0.5');
    const initial = index.spills.find((s) => s.producer === 'copy.10');
    expect(initial).toMatchObject({ scope: 'main.7', consumers: ['dot'], bytes: 64 });
  });
});

describe('indexHlo before optimization', () => {
  it('indexes values and dots but reports no spills', () => {
    const { index, diagnostics } = indexHlo(fixture('attention', 'hlo.txt'), 'hlo');
    expect(diagnostics).toEqual([]);
    expect(index.spills).toEqual([]);
    expect(index.dots.length).toBe(2);
    expect(index.values.length).toBeGreaterThan(10);
  });
});
