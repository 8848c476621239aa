import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const python = join(repo, 'runners', '.venv', 'bin', 'python');

/** The layer whose MLP the second dump widens. */
export const WIDE_LAYER = 16;

/** Compiles the model with one layer's MLP widened (0: none) and writes its optimized HLO to `out`. */
const GENERATE = `
import os, sys
sys.path.insert(0, sys.argv[1])
import gen_large_hlo as g
os.environ["XLA_FLAGS"] = " ".join([os.environ.get("XLA_FLAGS", ""), *g.CHEAP_CODEGEN]).strip()
import jax, jax.numpy as jnp
out, wide = sys.argv[2], int(sys.argv[3])
step, params = g.build_step(32, 256, 4, 1024)
if wide:
    params["layers"][wide]["w1"] = jax.ShapeDtypeStruct((256, 1536), jnp.float32)
    params["layers"][wide]["w2"] = jax.ShapeDtypeStruct((1536, 256), jnp.float32)
tokens = jax.ShapeDtypeStruct((2, 128), jnp.int32)
text = jax.jit(step).lower(params, params, params, tokens).compile().as_text()
open(out + ".tmp", "w").write(text)
os.replace(out + ".tmp", out)
`;

function ensureDump(file: string, wide: number): string {
  if (existsSync(file)) return file;
  mkdirSync(dirname(file), { recursive: true });
  console.log(`compiling ${file} (layer ${wide || 'none'} widened)…`);
  const run = spawnSync(python, ['-', join(repo, 'runners', 'python'), file, String(wide)], { input: GENERATE, stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, JAX_PLATFORMS: 'cpu' } });
  if (run.status !== 0) throw new Error(`generating ${file} failed (${run.status ?? run.signal})`);
  return file;
}

/**
 * Two ~25 MB optimized HLO dumps of one training step of a 32-layer transformer
 * (`runners/python/gen_large_hlo.py`'s model, layers unrolled) that differ in one place: layer
 * `WIDE_LAYER`'s MLP is 1,536 wide instead of 1,024 in `b`. Compiled once into the OS temp folder
 * (about a minute each) and reused; returns their paths.
 */
export function largeDumps(): { readonly a: string; readonly b: string } {
  const dir = join(tmpdir(), 'seam-diff-bench');
  return { a: ensureDump(join(dir, 'a.txt'), 0), b: ensureDump(join(dir, 'b.txt'), WIDE_LAYER) };
}
