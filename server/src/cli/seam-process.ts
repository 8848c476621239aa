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

/** A `seam` child still running: its output so far, a wait for an output line, and its end. */
export interface RunningSeam {
  readonly child: ReturnType<typeof spawn>;
  /** Resolves with the first stdout line matching `re` (already written or still to come); rejects if the process ends first. */
  line(re: RegExp): Promise<string>;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts `seam ARGS…` as a child process from the repository root and hands it over while it runs (for tests of long commands). */
export function startSeam(...args: string[]): RunningSeam {
  const child = spawn(process.execPath, [bin, ...args], { cwd: REPO_ROOT });
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const hit = stdout.split('\n').find((l) => w.re.test(l));
      if (hit !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hit);
      }
    }
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`seam ended (${code ?? signal}) before writing a line like ${w.re}; stdout: ${stdout}; stderr: ${stderr}`));
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    done,
    line: (re) => new Promise((resolve, reject) => {
      waiters.push({ re, resolve, reject });
      check();
    }),
  };
}
