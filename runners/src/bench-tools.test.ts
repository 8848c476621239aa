import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNERS_DIR, venvPython } from './venv';

const run = promisify(execFile);
const script = (name: string) => join(RUNNERS_DIR, 'python', name);

describe('benchmark tools', () => {
  let dir = '';
  let generated: { path: string; bytes: number; lines: number; layers: number; compileSeconds: number };
  let warning = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seam-large-hlo-'));
    const out = join(dir, 'model.hlo');
    const args = [script('gen_large_hlo.py'), out, '--layers', '2', '--d-model', '64', '--heads', '2', '--d-ff', '128', '--seq', '16'];
    const { stdout, stderr } = await run(venvPython(), args, { timeout: 240_000 });
    generated = JSON.parse(stdout) as typeof generated;
    warning = stderr;
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gen_large_hlo writes the optimized HLO of a transformer training step, one block per layer', () => {
    const text = readFileSync(generated.path, 'utf8');
    expect(generated.bytes).toBe(statSync(generated.path).size);
    expect(generated.layers).toBe(2);
    expect(warning).toContain(`${generated.bytes} bytes is under --min-bytes 20000000`);
    expect(text.startsWith('HloModule jit_step, is_scheduled=true')).toBe(true);
    expect(text).toMatch(/kind=kLoop/);
    // Two rematerialized blocks: each softmax of the causal attention scores appears per layer.
    expect(text.match(/= f32\[2,2,16,16\]\{[\d,]+\} fusion\(/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
  });

  it('time_xla_parser parses the dump with XLA and reports its speed', async () => {
    const { stdout } = await run(venvPython(), [script('time_xla_parser.py'), generated.path, '--repeat', '2'], { timeout: 120_000 });
    const result = JSON.parse(stdout) as { seconds: number; medianSeconds: number; bytes: number; mb_per_s: number; api: string; repeat: number; computations: number };
    expect(result.api).toBe('jaxlib._hlo.hlo_module_from_text');
    expect(result.bytes).toBe(generated.bytes);
    expect(result.repeat).toBe(2);
    expect(result.computations).toBeGreaterThan(10);
    expect(result.seconds).toBeGreaterThan(0);
    expect(result.mb_per_s).toBeCloseTo(result.bytes / 1e6 / result.seconds, 0);
  });

  it('time_xla_parser fails with XLA\'s message on text that is not HLO', async () => {
    const failure = await run(venvPython(), [script('time_xla_parser.py'), join(RUNNERS_DIR, 'python', 'requirements.txt')]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { stderr: string }).stderr).toMatch(/INVALID_ARGUMENT|Syntax error|expects/i);
  });
});
