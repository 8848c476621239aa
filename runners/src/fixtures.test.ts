import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNERS_DIR, venvPython } from './venv';

const run = promisify(execFile);
const CHECKED_IN = resolve(RUNNERS_DIR, '..', 'test', 'fixtures', 'ir');
const FIXTURES = ['mlp', 'attention', 'attention-fused', 'scan', 'custom_jvp', 'conv', 'sharded'] as const;
const BYTES: Record<string, number> = { bf16: 2, f16: 2, f32: 4, f64: 8, s32: 4, pred: 1 };

/** One instruction line of an HLO computation: `%name = f32[8,8]{1,0} fusion(%a, %b), kind=kLoop`. */
interface HloLine {
  readonly name: string;
  readonly dtype: string;
  readonly dims: readonly number[];
  readonly opcode: string;
  readonly operands: readonly string[];
}

/** The instructions of the ENTRY computation of an HLO text (enough for these checks, not a parser). */
function entryInstructions(hlo: string): HloLine[] {
  const start = hlo.indexOf('\nENTRY ');
  const body = hlo.slice(start, hlo.indexOf('\n}', start));
  const out: HloLine[] = [];
  for (const m of body.matchAll(/^\s+(?:ROOT )?%?([\w.-]+) = (\w+)\[([\d,]*)\]\S* ([\w-]+)\(([^)]*)\)/gm)) {
    const [, name, dtype, dims, opcode, operands] = m as unknown as [string, string, string, string, string, string];
    out.push({
      name,
      dtype,
      dims: dims ? dims.split(',').map(Number) : [],
      opcode,
      operands: operands.split(',').map((o) => o.trim().replace(/^%/, '')).filter(Boolean),
    });
  }
  return out;
}

/** File names listed in an HLO text's `FileNames` table. */
function hloFileNames(hlo: string): string[] {
  const table = /\nFileNames\n((?:\d+ "[^"]*"\n)+)/.exec(hlo);
  return table ? [...table[1]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!) : [];
}

const KERNELS = new Set(['fusion', 'dot', 'convolution', 'custom-call', 'copy']);

function checks(label: string, dir: () => string): void {
  const read = (fixture: string, file: string) => readFileSync(join(dir(), fixture, file), 'utf8');
  const json = (fixture: string, file: string) => JSON.parse(read(fixture, file)) as Record<string, unknown>;

  describe(`${label} fixtures`, () => {
    it.each(FIXTURES)('%s holds every file its meta lists, none empty', (name) => {
      const meta = json(name, 'meta.json') as { files: string[]; module: string; provenance: { jax: string } };
      expect(meta.files).toEqual(expect.arrayContaining(['program.py', 'jaxpr.txt', 'stablehlo.mlir', 'stablehlo-debug.mlir', 'hlo.txt', 'hlo-opt.txt', 'cost.json', 'memory.json']));
      for (const file of meta.files) expect(statSync(join(dir(), name, file)).size, file).toBeGreaterThan(0);
      expect(read(name, 'hlo-opt.txt').startsWith(`HloModule ${meta.module},`)).toBe(true);
      expect(meta.provenance.jax).toMatch(/^\d+\.\d+\.\d+/);
    });

    it.each(FIXTURES)('%s names only program.py in its source info, never a machine path', (name) => {
      for (const file of ['hlo.txt', 'hlo-opt.txt']) expect(hloFileNames(read(name, file)), file).toEqual(['program.py']);
      const files = [...read(name, 'stablehlo-debug.mlir').matchAll(/loc\("([^"]+)":\d+/g)].map((m) => m[1]);
      expect(new Set(files)).toEqual(new Set(['program.py']));
      const jaxprFiles = [...read(name, 'jaxpr.txt').matchAll(/# ([^\s:]+):\d+(?::\d+)? \(/g)].map((m) => m[1]);
      expect(new Set(jaxprFiles)).toEqual(new Set(['program.py']));
    });

    it('mlp: one dot_general traced through jaxpr, StableHLO, HLO and the fusion that holds it', () => {
      expect(read('mlp', 'jaxpr.txt')).toMatch(/d:bf16\[32,128\] = dot_general\[\s+# program\.py:5:\d+ \(mlp\)[\s\S]*?dimension_numbers=\(\(\[1\], \[0\]\), \(\[\], \[\]\)\)/);
      expect(read('mlp', 'stablehlo.mlir')).toMatch(/stablehlo\.dot_general %arg0, %arg1, contracting_dims = \[1\] x \[0\].*\(tensor<32x64xbf16>, tensor<64x128xbf16>\) -> tensor<32x128xbf16>/);
      expect(read('mlp', 'stablehlo-debug.mlir')).toMatch(/#loc\d+ = loc\("jit\(mlp\)\/dot_general"\(#loc\d+\)\)/);
      expect(read('mlp', 'hlo.txt')).toMatch(/= bf16\[32,128\]\{1,0\} dot\(%x\.1, %w\.1\), lhs_contracting_dims=\{1\}, rhs_contracting_dims=\{0\}, metadata=\{op_name="jit\(mlp\)\/dot_general" stack_frame_id=\d+\}/);
      const opt = read('mlp', 'hlo-opt.txt');
      expect(opt).toMatch(/is_scheduled=true/);
      expect(opt).toMatch(/^\s+%[\w.]+ = f32\[32,128\]\{1,0\} dot\(.*metadata=\{op_name="jit\(mlp\)\/dot_general" stack_frame_id=\d+\}/m);
      expect(entryInstructions(opt).some((i) => i.opcode === 'fusion')).toBe(true);
      expect(opt).toMatch(/\nStackFrames\n1 \{file_location_id=\d+ parent_frame_id=\d+\}/);
      expect((json('mlp', 'cost.json') as { flops: number }).flops).toBeGreaterThan(0);
      expect(json('mlp', 'memory.json')).toMatchObject({ argument_size_in_bytes: 32 * 64 * 2 + 64 * 128 * 2 + 128 * 2, output_size_in_bytes: 32 * 2 });
    });

    it('attention: an 8192×8192 matrix is written by one kernel and read back by another', () => {
      const entry = entryInstructions(read('attention', 'hlo-opt.txt'));
      const spilled = entry.filter(
        (i) => KERNELS.has(i.opcode) && i.dims.join('x') === '8192x8192' && entry.some((j) => KERNELS.has(j.opcode) && j.operands.includes(i.name)),
      );
      expect(spilled.length).toBeGreaterThan(0);
      for (const s of spilled) expect([134_217_728, 268_435_456]).toContain(8192 * 8192 * BYTES[s.dtype]!);
      expect(spilled.map((s) => s.opcode)).toContain('dot');
      expect(statSync(join(dir(), 'attention', 'hlo-opt.txt')).size).toBeLessThan(64 * 1024);
      expect(read('attention', 'stablehlo.mlir')).toMatch(/contracting_dims = \[1\] x \[0\].*\(tensor<8192x128xbf16>, tensor<128x8192xbf16>\) -> tensor<8192x8192xbf16>/);
    });

    it('attention-fused: by default XLA:CPU keeps naive attention inside one custom fusion', () => {
      const kernels = entryInstructions(read('attention-fused', 'hlo-opt.txt')).filter((i) => KERNELS.has(i.opcode));
      expect(kernels.map((k) => [k.opcode, k.dims.join('x')])).toEqual([['fusion', '8192x128']]);
      expect(read('attention-fused', 'hlo-opt.txt')).toMatch(/kind=kCustom, calls=%[\w.]+/);
    });

    it('scan, custom_jvp and conv keep their structure in every layer', () => {
      expect(read('scan', 'jaxpr.txt')).toMatch(/scan\[[\s\S]*jaxpr=\{ lambda/);
      expect(read('scan', 'stablehlo.mlir')).toMatch(/stablehlo\.while/);
      expect(read('scan', 'hlo-opt.txt')).toMatch(/^\s+%while[\w.]* = \(s32\[\], f32\[16\]\{0\}.*\) while\(%tuple[\w.]*\), condition=%[\w.]+, body=%[\w.]+/m);
      expect(read('custom_jvp', 'jaxpr.txt')).toMatch(/custom_jvp_call\[[\s\S]*name=log1pexp/);
      expect(read('conv', 'stablehlo.mlir')).toMatch(/stablehlo\.convolution/);
      expect(read('conv', 'hlo-opt.txt')).toMatch(/= f32\[2,16,16,16\]\{[\d,]+\} convolution\(/);
    });

    it('sharded: eight host devices, shardings on parameters and a collective', () => {
      const meta = json('sharded', 'meta.json') as { provenance: { deviceCount: number; xlaFlags: string } };
      expect(meta.provenance.deviceCount).toBe(8);
      expect(meta.provenance.xlaFlags).toContain('--xla_force_host_platform_device_count=8');
      const opt = read('sharded', 'hlo-opt.txt');
      expect(opt).toMatch(/parameter\(0\), sharding=\{devices=\[4,1,2\]<=\[8\] last_tile_dim_replicate\}/);
      expect(entryInstructions(opt).some((i) => i.opcode === 'all-reduce')).toBe(true);
      expect(read('sharded', 'stablehlo.mlir')).toMatch(/sdy\.mesh @mesh = <\["data"=4, "model"=2\]>/);
    });
  });
}

let fresh = '';

beforeAll(async () => {
  fresh = mkdtempSync(join(tmpdir(), 'seam-fixtures-'));
  await run(venvPython(), [join(RUNNERS_DIR, 'python', 'fixtures.py'), fresh], { timeout: 280_000 });
});
afterAll(() => {
  if (fresh) rmSync(fresh, { recursive: true, force: true });
});

checks('checked-in', () => CHECKED_IN);
checks('regenerated', () => fresh);

describe('regeneration', () => {
  it('writes the same fixtures and files as are checked in', () => {
    const list = (root: string) => readdirSync(root).sort().map((d) => [d, readdirSync(join(root, d)).sort()]);
    expect(list(fresh)).toEqual(list(CHECKED_IN));
    expect(existsSync(join(fresh, 'mlp', 'program.py'))).toBe(true);
  });
});
