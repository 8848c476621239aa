import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBufferAssignment } from './buffer-assignment';
import { mergeAssignments } from './plan-join';

const dump = (folder: string, file: string): string => readFileSync(new URL(`../../../../test/fixtures/xla-dump/${folder}/${file}`, import.meta.url), 'utf8');
const attention = (suffix: string): string => dump('attention', `module_0000.jit_attention.cpu_after_optimizations-${suffix}.txt`);
const mlp = (suffix: string): string => dump('mlp', `module_0000.jit_mlp.cpu_after_optimizations-${suffix}.txt`);

describe('parseBufferAssignment on XLA:CPU dumps', () => {
  it('reads every allocation of naive attention with its size, flags and values', () => {
    const { ast, diagnostics } = parseBufferAssignment(attention('buffer-assignment'));
    expect(diagnostics).toEqual([]);
    expect(ast.allocations).toHaveLength(25);
    expect(ast.allocations.map((a) => a.index)).toEqual([...Array(25).keys()]);
    const [out, q] = ast.allocations;
    expect(out).toMatchObject({ index: 0, size: 2097152, flags: ['output', 'maybe-live-out'], shape: 'bf16[8192,128]', line: 2 });
    expect(out?.values.map((v) => v.name)).toEqual(['wrapped_reduce-window.1', 'wrapped_reduce-window.3', 'wrapped_convert.4']);
    expect(q).toMatchObject({ index: 1, size: 2097152, flags: ['parameter'], parameter: 0, shape: 'bf16[8192,128]' });
    expect(ast.allocations[4]).toMatchObject({ size: 4, flags: ['constant'] });
    expect(ast.allocations[6]).toMatchObject({ size: 2, flags: ['thread-local'] });
    const temp = ast.allocations[24];
    expect(temp).toMatchObject({ size: 406863872, flags: ['preallocated-temp'], color: 0 });
    expect(temp?.values).toHaveLength(12);
    expect(temp?.values.find((v) => v.name === 'dot_general.2')).toEqual({ id: 72, name: 'dot_general.2', index: '', size: 268435456, offset: 0, shape: 'f32[8192,8192]{1,0}', color: 0, line: 55 });
    // Without `Total bytes used` (printed in the values file) the total is the allocations' sum.
    expect(ast.totalPrinted).toBe(false);
    expect(ast.totalBytes).toBe(415252540);
  });

  it('reads XLA’s total and counts the used values from the -values file', () => {
    const { ast, diagnostics } = parseBufferAssignment(attention('buffer-assignment-values'));
    expect(diagnostics).toEqual([]);
    expect(ast).toMatchObject({ totalBytes: 415252540, totalPrinted: true, usedValues: 38, allocations: [] });
    expect(parseBufferAssignment(mlp('buffer-assignment-values')).ast).toMatchObject({ totalBytes: 29644, usedValues: 10 });
  });

  it('reads the peak live set from the live-range file', () => {
    const { ast, diagnostics } = parseBufferAssignment(attention('live-range'));
    expect(diagnostics).toEqual([]);
    expect(ast.scheduleLength).toBe(20);
    expect(ast.peak?.time).toBe(18);
    expect(ast.peak?.bytes).toBe(283115520);
    expect(ast.peak?.values.map((v) => `${v.name}${v.index}:${v.bytes}`)).toEqual([
      'convert_convert_fusion{}:268435456', 'dot_general.3{}:4194304', 'wrapped_convert.3{}:4194304', 'k.1{}:2097152', 'q.1{}:2097152', 'v.1{}:2097152',
    ]);
  });

  it('reads the one-file form older XLA writes, with all three sections', () => {
    const text = `${mlp('buffer-assignment')}\n${mlp('buffer-assignment-values')}${mlp('live-range')}`;
    const { ast, diagnostics } = parseBufferAssignment(text);
    expect(diagnostics).toEqual([]);
    expect(ast).toMatchObject({ totalBytes: 29644, totalPrinted: true, usedValues: 10, scheduleLength: 7, peak: { time: 6, bytes: 20928 } });
    expect(ast.allocations).toHaveLength(8);
    expect(mergeAssignments([mlp('buffer-assignment'), mlp('buffer-assignment-values'), mlp('live-range')].map((t) => parseBufferAssignment(t).ast))).toEqual(ast);
  });

  it('reads tuple shape indices, phis, colors and the old pointer form of the header', () => {
    const text = [
      'allocation 0: 0x5581, size 16, color 1, parameter 2, shape |(f32[2], s32[2])| at ShapeIndex {1}, maybe-live-out:',
      ' value: <5 while.3{1} (phi) @1> (size=8,offset=8): s32[2]{0}',
      '',
    ].join('\n');
    const { ast, diagnostics } = parseBufferAssignment(text);
    expect(diagnostics).toEqual([]);
    expect(ast.allocations[0]).toMatchObject({ index: 0, size: 16, color: 1, parameter: 2, shape: '(f32[2], s32[2])', flags: ['parameter', 'maybe-live-out'] });
    expect(ast.allocations[0]?.values[0]).toMatchObject({ id: 5, name: 'while.3', index: '{1}', phi: true, color: 1, size: 8, offset: 8 });
  });

  it('says a text cut inside a value line ends early, and keeps what came before', () => {
    const full = attention('buffer-assignment');
    const cut = full.slice(0, full.indexOf('(size=268435456') + 10);
    const { ast, diagnostics } = parseBufferAssignment(cut);
    expect(ast.allocations).toHaveLength(25);
    expect(ast.allocations[24]?.values.map((v) => v.name)).toEqual(['wrapped_convert', 'wrapped_convert.1']);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', message: expect.stringMatching(/^the text ends inside a line/) });
  });

  it('refuses numbers too large to be exact, lines of no section and texts that are not a buffer assignment', () => {
    const huge = parseBufferAssignment('allocation 0: size 99999999999999999999, constant:\n');
    expect(huge.ast.allocations).toEqual([]);
    expect(huge.diagnostics.map((d) => d.message)).toContain('expected `allocation N: size S, …:` with numbers exact in a double');
    const other = parseBufferAssignment('HloModule m\n\nENTRY e { ROOT p = f32[] parameter(0) }\n');
    expect(other.ast.allocations).toEqual([]);
    expect(other.diagnostics.at(-1)).toMatchObject({ severity: 'error', message: expect.stringMatching(/^not an XLA buffer assignment/) });
    expect(other.diagnostics.filter((d) => d.message === 'not a line of an XLA buffer assignment')).toHaveLength(2);
  });

  it('passes over the stats and OOM sections XLA may print beside the assignment', () => {
    const stats = [
      'BufferAssignment stats:',
      '             parameter allocation:   20.25KiB',
      '                 total allocation:   28.95KiB',
      'Peak buffers:',
      '\tBuffer 1:',
      '\t\tSize: 16.0KiB',
      '',
    ].join('\n');
    const { ast, diagnostics } = parseBufferAssignment(`${mlp('buffer-assignment')}\n${stats}`);
    expect(diagnostics).toEqual([]);
    expect(ast.allocations).toHaveLength(8);
  });

  it('warns when the printed total disagrees with the allocations', () => {
    const { diagnostics } = parseBufferAssignment(`${mlp('buffer-assignment')}\nTotal bytes used: 5 (5B)\n`);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', message: 'Total bytes used says 5 but the allocations add up to 29644: the text may be cut short or edited' })]);
  });
});
