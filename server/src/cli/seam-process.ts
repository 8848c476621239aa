import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, and the `seam` executable in it. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(REPO_ROOT, 'server/bin/seam.js');

/** Runs `seam ARGS…` as a child process from the repository root, the way a shell would (for tests). */
export function seam(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
