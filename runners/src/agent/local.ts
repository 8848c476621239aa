import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { RunnerCapabilities } from '@seam/shared/protocol';
import { ensureVenv, PROJECT_VENV, type EnsureVenvOptions, type EnsureVenvResult } from '../venv';
import { DEFAULT_PYTHON, type CliOptions } from './config';

/** Builds a virtualenv; `ensureVenv` unless a caller passes another (a test's own layout). */
export type EnsureVenv = (options: EnsureVenvOptions) => Promise<EnsureVenvResult>;

/**
 * The `--local` preparation: when the runner would use the project's virtualenv, creates or updates
 * it first (pip's output on first use comes through `onProgress`, each line prefixed `[venv]`) and
 * returns the options with its interpreter. Options naming their own `--python` pass unchanged.
 * Throws `VenvError` with pip's last lines when the virtualenv cannot be built.
 */
export async function prepareLocal(options: CliOptions, onProgress: (line: string) => void, ensure: EnsureVenv = ensureVenv): Promise<CliOptions> {
  if (!options.local || options.python !== DEFAULT_PYTHON) return options;
  const venv = await ensure({ onProgress: (line) => onProgress(`[venv] ${line}`) });
  onProgress(`${options.name}: virtualenv ${venv.status}`);
  return { ...options, python: venv.python };
}

/**
 * What the local runner can say of itself before its virtualenv exists: the CPU it will run on, the
 * JAX and jaxlib versions the requirements pin (what the build installs), and the Python that
 * builds it (`$SEAM_PYTHON`, else `python3`). Each capture's provenance reports what it really ran.
 */
export function pinnedCapabilities(env: Record<string, string | undefined>, requirements = PROJECT_VENV.requirements): RunnerCapabilities {
  const text = readFileSync(requirements, 'utf8');
  const pin = (name: string) => new RegExp(`^${name}==([^\\s;#]+)`, 'm').exec(text)?.[1] ?? 'unknown';
  let python = 'unknown';
  try {
    python = execFileSync(env.SEAM_PYTHON || 'python3', ['-c', 'import platform; print(platform.python_version())'], { encoding: 'utf8' }).trim() || python;
  } catch {
    // The build itself says why this Python cannot be used.
  }
  return { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: pin('jax'), jaxlib: pin('jaxlib'), python };
}
