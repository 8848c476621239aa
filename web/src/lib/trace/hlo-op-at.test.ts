import { describe, expect, it } from 'vitest';
import { analyze } from '@seam/shared/ir';
import { buildLookup } from '../editor/ir/lookup';
import { hloOpAt, lineTextAt } from './hlo-op-at';
import text from '../../../../test/fixtures/gate/attention-cpu/hlo-opt.txt?raw';
import opsJson from '../../../../test/fixtures/gate/attention-cpu/ops.json';

const ops = opsJson as { name: string }[];
const lookup = buildLookup(analyze(text, 'hlo-opt').index);
const lines = text.split('\n');
const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
const opAt = (line: number) => hloOpAt(lookup, line, lineTextAt(lookup, text, line));

describe('the traced op of an HLO line', () => {
  it('is the instruction defined on the line, for every op the real CPU trace names', () => {
    for (const o of ops) expect(opAt(lineOf(`%${o.name} = `)), o.name).toBe(o.name);
  });

  it('is the calling fusion for a fused computation, its header and every instruction in it', () => {
    const header = lineOf('%fused_computation.2 (');
    expect(opAt(header)).toBe('convert_exponential_fusion');
    expect(opAt(header + 1)).toBe('convert_exponential_fusion');
    expect(opAt(lineOf('%wrapped_convert_computation.2 (') + 1)).toBe('wrapped_convert.2');
  });

  it('reads any line of the dump, inside a computation or not', () => {
    for (const n of [1, 2, 20, 21, 145, 151, lines.length]) expect(lineTextAt(lookup, text, n), String(n)).toBe(lines[n - 1]);
    expect(lineTextAt(lookup, text, lines.length + 5)).toBe('');
  });

  it('is null on lines that define nothing', () => {
    expect(opAt(1)).toBeNull();
    expect(opAt(lines.length + 5)).toBeNull();
  });
});
