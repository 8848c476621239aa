import { describe, expect, it } from 'vitest';
import { CaptureRequestSchema } from '@seam/shared/model';
import { buildRequest, EMPTY_FORM, MLP_EXAMPLE, parseSpecs, splitSpecs } from './capture-form';

describe('argument specs in the Capture panel', () => {
  it('reads specs one per line or comma-separated, keeping commas inside a shape', () => {
    expect(splitSpecs('bf16[8192,128], f32[128]\n s32[]')).toEqual(['bf16[8192,128]', 'f32[128]', 's32[]']);
    expect(parseSpecs('bf16[8192,128]\nfloat32[4, 4]').specs).toEqual([
      { shape: [8192, 128], dtype: 'bfloat16' },
      { shape: [4, 4], dtype: 'float32' },
    ]);
  });

  it('reports each spec it cannot read by position, without throwing', () => {
    const r = parseSpecs('f32[2], q9[3], f32[x], ]]][[');
    expect(r.specs).toEqual([{ shape: [2], dtype: 'float32' }]);
    expect(r.errors.map((e) => [e.index, e.text])).toEqual([[1, 'q9[3]'], [2, 'f32[x]'], [3, ']]][[']]);
    expect(r.errors[0]?.message).toContain('unknown dtype');
  });
});

describe('buildRequest', () => {
  it('builds a request the server schema accepts for the MLP example', () => {
    const r = buildRequest(MLP_EXAMPLE.program, { ...EMPTY_FORM, entry: MLP_EXAMPLE.entry, args: MLP_EXAMPLE.args, runner: 'local', xlaFlags: ' --xla_foo ' });
    if ('error' in r) throw new Error(r.error);
    const parsed = CaptureRequestSchema.parse(r.request);
    expect(parsed.args).toEqual([{ shape: [32, 64], dtype: 'float32' }, { shape: [64, 128], dtype: 'float32' }, { shape: [128], dtype: 'float32' }]);
    expect(parsed.runner).toBe('local');
    expect(parsed.options).toEqual({ xlaFlags: '--xla_foo', timeoutS: 120, repeats: 3 });
    expect(parsed.capture).toEqual(['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'cost', 'memory']);
  });

  it('names the first problem: empty program, bad entry, bad spec, nothing chosen, bad timeout', () => {
    const ok = { ...EMPTY_FORM, entry: 'f', args: 'f32[2]' };
    expect(buildRequest('  ', ok)).toEqual({ error: 'The program is empty.' });
    expect(buildRequest('x', { ...ok, entry: 'my-fn' })).toEqual({ error: 'The entry function must be a Python name, e.g. mlp.' });
    expect(buildRequest('x', { ...ok, args: 'f32[2]\nbf16[a]' })).toEqual({ error: 'Argument 2: "bf16[a]" is not of the form dtype[d0,d1,…].' });
    expect(buildRequest('x', { ...ok, capture: [] })).toEqual({ error: 'Choose at least one thing to capture.' });
    expect(buildRequest('x', { ...ok, timeoutS: 0 })).toEqual({ error: 'The timeout must be 1 to 3600 seconds.' });
  });
});
