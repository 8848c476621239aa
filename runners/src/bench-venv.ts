import { join } from 'node:path';
import { ensureVenv, RUNNERS_DIR, type EnsureVenvOptions, type EnsureVenvResult, type VenvLayout } from './venv';

/** The benchmark references' virtualenv (XProf from PyPI), apart from the capture harness's: `runners/.venv-bench`. */
export const BENCH_VENV: VenvLayout = {
  venvDir: join(RUNNERS_DIR, '.venv-bench'),
  requirements: join(RUNNERS_DIR, 'python', 'requirements-bench.txt'),
};

/** The script that reads a trace the way the references do (XProf's XPlane reader and trace viewer, Python's `json`). */
export const TRACE_REFERENCE_SCRIPT = join(RUNNERS_DIR, 'python', 'trace_reference.py');

/** Creates or updates the benchmark virtualenv from its pinned requirements (nothing to do when it matches them). */
export function ensureBenchVenv(options: Omit<EnsureVenvOptions, keyof VenvLayout> = {}): Promise<EnsureVenvResult> {
  return ensureVenv({ ...options, ...BENCH_VENV });
}
