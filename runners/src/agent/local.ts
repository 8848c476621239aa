import { ensureVenv, type EnsureVenvOptions, type EnsureVenvResult } from '../venv';
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
