import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNERS_DIR, venvPython } from './venv';

const PYTHON_DIR = join(RUNNERS_DIR, 'python');
const MLP = 'import jax\n\n\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b).mean(axis=-1)\n';
const ATTENTION = 'import jax\n\n\ndef attention(q, k, v):\n    return jax.nn.softmax(q @ k.T, axis=-1) @ v\n';
const REPEATS = 3;

interface Outcome {
  readonly code: number;
  readonly stderr: string;
  readonly dir: string;
}

let root = '';

/** Runs `python -m seam_capture.run` on one job, as the runner agent will. */
function capture(name: string, job: object): Promise<Outcome> {
  const jobPath = join(root, `${name}.json`);
  const dir = join(root, name);
  writeFileSync(jobPath, JSON.stringify(job));
  return new Promise((resolve) => {
    execFile(
      venvPython(),
      ['-m', 'seam_capture.run', jobPath, dir],
      { cwd: root, env: { ...process.env, PYTHONPATH: PYTHON_DIR, XLA_FLAGS: '', JAX_PLATFORMS: 'cpu' }, timeout: 240_000 },
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr, dir }),
    );
  });
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Every instruction name defined in an HLO text (`%name = …`, `ROOT %name = …`). */
function hloInstructionNames(hlo: string): Set<string> {
  return new Set([...hlo.matchAll(/^\s+(?:ROOT )?%?([\w.-]+) = /gm)].map((m) => m[1]!));
}

let mlp: Outcome;
let attention: Outcome;
let syntax: Outcome;
let raising: Outcome;
let badSpec: Outcome;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'seam-capture-'));
  mlp = await capture('mlp', { program: MLP, entry: 'mlp', args: ['bf16[32,64]', { shape: [64, 128], dtype: 'bf16' }, 'bf16[128]'] });
  attention = await capture('attention', {
    program: ATTENTION,
    entry: 'attention',
    args: ['bf16[1024,128]', 'bf16[1024,128]', 'bf16[1024,128]'],
    capture: ['hlo-opt', 'trace'],
    options: { warmup: 1, repeats: REPEATS },
  });
  syntax = await capture('syntax', { program: 'import jax\n\ndef f(x:\n    return x\n', entry: 'f', args: ['f32[2]'] });
  raising = await capture('raising', { program: 'def f(x, w):\n    y = x * 2\n    return y @ w\n', entry: 'f', args: ['f32[2,3]', 'f32[4,5]'] });
  badSpec = await capture('bad-spec', { program: MLP, entry: 'mlp', args: ['bf16(32,64)'] });
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('python -m seam_capture.run', () => {
  it('writes every default artifact of the MLP, each listed with its size and hash', () => {
    expect(mlp.code, mlp.stderr).toBe(0);
    const result = readJson(join(mlp.dir, 'result.json')) as { ok: boolean; module: string; artifacts: { name: string; file: string; kind: string | null; bytes: number; sha256: string }[] };
    expect(result.ok).toBe(true);
    expect(result.module).toBe('jit_mlp');
    expect(result.artifacts.map((a) => [a.name, a.file, a.kind])).toEqual([
      ['jaxpr', 'jaxpr.txt', 'jaxpr'],
      ['stablehlo', 'stablehlo.mlir', 'stablehlo'],
      ['stablehlo-debug', 'stablehlo-debug.mlir', 'stablehlo'],
      ['hlo', 'hlo.txt', 'hlo'],
      ['hlo-opt', 'hlo-opt.txt', 'hlo-opt'],
      ['cost', 'cost.json', null],
      ['memory', 'memory.json', null],
    ]);
    for (const a of result.artifacts) {
      const bytes = readFileSync(join(mlp.dir, a.file));
      expect(bytes.length, a.file).toBe(a.bytes);
      expect(createHash('sha256').update(bytes).digest('hex'), a.file).toBe(a.sha256);
    }
  });

  it('compiles the MLP into fusions and reports its flops and memory', () => {
    expect(readFileSync(join(mlp.dir, 'hlo-opt.txt'), 'utf8')).toMatch(/= f32\[32\]\{0\} fusion\([^)]*\), kind=k\w+, calls=%[\w.]+/);
    const cost = readJson(join(mlp.dir, 'cost.json')) as { flops: number };
    expect(cost.flops).toBeGreaterThan(2 * 32 * 64 * 128 - 1);
    expect(readJson(join(mlp.dir, 'memory.json'))).toMatchObject({ argument_size_in_bytes: 20_736, output_size_in_bytes: 64 });
  });

  it('records where and with what it ran', () => {
    const { provenance } = readJson(join(mlp.dir, 'result.json')) as { provenance: Record<string, unknown> };
    expect(provenance).toMatchObject({ platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2' });
    expect(provenance.python).toMatch(/^3\.\d+\.\d+$/);
  });

  it('points source info at program.py and at none of the harness files', () => {
    const jaxpr = readFileSync(join(mlp.dir, 'jaxpr.txt'), 'utf8');
    expect(jaxpr).toMatch(/dot_general\[\s+# program\.py:5:\d+ \(mlp\)/);
    const debug = readFileSync(join(mlp.dir, 'stablehlo-debug.mlir'), 'utf8');
    expect(debug).toMatch(/loc\("program\.py":5:\d+ to :\d+\)/);
    for (const file of ['jaxpr.txt', 'stablehlo-debug.mlir', 'hlo.txt', 'hlo-opt.txt']) {
      expect(readFileSync(join(mlp.dir, file), 'utf8'), file).not.toMatch(/seam_capture|runpy|site-packages/);
    }
  });

  it('profiles naive attention into an op table whose names are all instructions of its optimized HLO', () => {
    expect(attention.code, attention.stderr).toBe(0);
    const hlo = readFileSync(join(attention.dir, 'hlo-opt.txt'), 'utf8');
    const names = hloInstructionNames(hlo);
    const ops = JSON.parse(readFileSync(join(attention.dir, 'ops.json'), 'utf8')) as { name: string; module: string; count: number; totalUs: number; meanUs: number }[];
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) {
      expect(names.has(op.name), op.name).toBe(true);
      expect(op.module).toBe('jit_attention');
      expect(op.count % REPEATS, op.name).toBe(0);
      expect(op.meanUs).toBeCloseTo(op.totalUs / op.count, 2);
    }
    expect(ops.map((o) => o.totalUs)).toEqual([...ops.map((o) => o.totalUs)].sort((a, b) => b - a));
    const trace = JSON.parse(gunzipSync(readFileSync(join(attention.dir, 'trace.json.gz'))).toString('utf8')) as { traceEvents: { args?: { hlo_op?: string } }[] };
    expect(trace.traceEvents.some((e) => e.args?.hlo_op === ops[0]!.name)).toBe(true);
    expect(readJson(join(attention.dir, 'result.json'))).toMatchObject({ capture: ['hlo-opt', 'trace', 'ops'] });
  });

  it('measures the copy bandwidth beside a trace, with the runs the trace covers, and only then', () => {
    const result = readJson(join(attention.dir, 'result.json')) as { provenance: { bandwidth: Record<string, unknown> }; trace: unknown };
    const bw = result.provenance.bandwidth as { bytes: number; seconds: number; bytesPerSecond: number; bestBytesPerSecond: number; deviceKind: string; nameplateBytesPerSecond: unknown; fractionOfNameplate: unknown };
    expect(bw.bytes).toBe(2 * 64 * 1024 * 1024 * 4);
    expect(bw.seconds).toBeGreaterThan(0);
    expect(bw.bytesPerSecond / (bw.bytes / bw.seconds)).toBeCloseTo(1, 6);
    expect(bw.bestBytesPerSecond).toBeGreaterThanOrEqual(bw.bytesPerSecond);
    // a host's memory bandwidth has no nameplate JAX can know
    expect(bw).toMatchObject({ deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null });
    expect(result.trace).toEqual({ warmup: 1, repeats: REPEATS });
    const plain = readJson(join(mlp.dir, 'result.json')) as { provenance: Record<string, unknown> };
    expect(plain.provenance.bandwidth).toBeUndefined();
    expect(plain).not.toHaveProperty('trace');
  });

  it('knows the nameplate bandwidth of the accelerators JAX names, and no figure for others', () => {
    const kinds = ['TPU v6 lite', 'TPU v5 lite', 'TPU v5', 'TPU v4', 'NVIDIA H200', 'NVIDIA H100 80GB HBM3', 'NVIDIA H100 PCIe', 'NVIDIA A100-SXM4-40GB', 'cpu', 'TPU7x'];
    const code = `import json, sys\nfrom seam_capture.bandwidth import nameplate_bytes_per_s\nprint(json.dumps([nameplate_bytes_per_s(k) for k in json.loads(sys.argv[1])]))`;
    const out = execFileSync(venvPython(), ['-c', code, JSON.stringify(kinds)], { env: { ...process.env, PYTHONPATH: PYTHON_DIR } }).toString();
    expect(JSON.parse(out)).toEqual([1640e9, 819e9, 2765e9, 1200e9, 4800e9, 3350e9, 2000e9, 1555e9, null, null]);
  });

  it('reports a syntax error with its traceback into program.py and exits 1', () => {
    expect(syntax.code).toBe(1);
    const error = readJson(join(syntax.dir, 'error.json')) as { ok: boolean; stage: string; type: string; traceback: string };
    expect(error).toMatchObject({ ok: false, stage: 'program', type: 'SyntaxError' });
    expect(error.traceback).toContain('File "program.py", line 3');
    expect(error.traceback).toContain('def f(x:');
    expect(error.traceback).not.toContain('seam_capture');
    expect(syntax.stderr).toContain('SyntaxError');
  });

  it('reports an exception raised while tracing with the program lines that led to it', () => {
    expect(raising.code).toBe(1);
    const error = readJson(join(raising.dir, 'error.json')) as { stage: string; type: string; message: string; traceback: string };
    expect(error.stage).toBe('program');
    expect(error.type).toBe('TypeError');
    expect(error.message).toMatch(/dot_general/);
    expect(error.traceback).toMatch(/File "program\.py", line 3, in f\n\s+return y @ w/);
    expect(error.traceback).not.toContain(RUNNERS_DIR);
  });

  it('refuses a malformed argument spec before running anything, and exits 2', () => {
    expect(badSpec.code).toBe(2);
    expect(readJson(join(badSpec.dir, 'error.json'))).toMatchObject({ ok: false, stage: 'job', type: 'SpecError', message: "argument 0: expected dtype[d0,d1,...], got 'bf16(32,64)'" });
    expect(() => statSync(join(badSpec.dir, 'result.json'))).toThrow();
  });
});

describe('python harness self-checks', () => {
  it('pass', async () => {
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(venvPython(), [join(PYTHON_DIR, 'selfcheck.py')], (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout }));
    });
    expect(out.stdout).not.toContain('FAILED');
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n').filter((l) => l.startsWith('ok ')).length).toBeGreaterThanOrEqual(8);
  });
});
