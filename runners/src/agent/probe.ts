import { execFile } from 'node:child_process';
import type { RunnerCapabilities } from '@seam/shared/protocol';

/**
 * Asks the runner's Python what it has (platform, device kind and count, jax/jaxlib/Python
 * versions) through the harness's provenance function. Rejects with the Python error when JAX
 * cannot start, since a runner without JAX can take no job.
 */
export function probeCapabilities(python: string, harnessDir: string, passEnv: Record<string, string>): Promise<RunnerCapabilities> {
  const code = 'import json; from seam_capture.provenance import provenance; print(json.dumps(provenance()))';
  return new Promise((resolve, reject) => {
    execFile(python, ['-c', code], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...passEnv, PYTHONPATH: harnessDir }, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`probing JAX with ${python} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || err.message}`));
        return;
      }
      const p = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
      resolve({
        platform: String(p.platform ?? 'unknown'), deviceKind: String(p.deviceKind ?? 'unknown'),
        deviceCount: Number(p.deviceCount ?? 0), jax: String(p.jax ?? ''), jaxlib: String(p.jaxlib ?? ''), python: String(p.python ?? ''),
      });
    });
  });
}
