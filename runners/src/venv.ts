import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acquireLock, LockTimeoutError } from './venv-lock';

/** Where the runners workspace lives (`runners/`), from this file's own location. */
export const RUNNERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The lowest Python that JAX 0.10 supports. */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** Name of the file, inside the virtualenv, that records which requirements it was built from. */
export const STAMP_FILE = '.seam-requirements.sha256';

/** Name of the lock file, inside the virtualenv, held by the one process that builds it. */
export const LOCK_FILE = '.seam-build.lock';

/** The virtualenv and the requirements it is built from. */
export interface VenvLayout {
  /** The virtualenv directory; default `runners/.venv`. */
  readonly venvDir: string;
  /** The pinned requirements; default `runners/python/requirements.txt`. */
  readonly requirements: string;
}

/** The project's own layout: `runners/.venv` built from `runners/python/requirements.txt`. */
export const PROJECT_VENV: VenvLayout = {
  venvDir: join(RUNNERS_DIR, '.venv'),
  requirements: join(RUNNERS_DIR, 'python', 'requirements.txt'),
};

/** Options of {@link ensureVenv}. */
export interface EnsureVenvOptions extends Partial<VenvLayout> {
  /** The interpreter that creates the virtualenv; default `python3`. */
  readonly python?: string;
  /** Extra `pip install` arguments (for example `--no-index` offline); default none. */
  readonly pipArgs?: readonly string[];
  /** Called with each progress line (our steps and pip's output); default: ignored. */
  readonly onProgress?: (line: string) => void;
  /** How long to wait for another process that is building the same virtualenv; default 20 minutes. */
  readonly lockTimeoutMs?: number;
}

/** What {@link ensureVenv} did. */
export interface EnsureVenvResult {
  /** `created`: new virtualenv; `updated`: requirements reinstalled; `up-to-date`: nothing to do. */
  readonly status: 'created' | 'updated' | 'up-to-date';
  /** The virtualenv's Python interpreter. */
  readonly python: string;
  /** SHA-256 of the requirements file the virtualenv now matches. */
  readonly requirementsHash: string;
}

/** The virtualenv could not be created or its requirements not installed; the message says why. */
export class VenvError extends Error {
  override readonly name = 'VenvError';
}

/** The Python interpreter inside a virtualenv directory. */
export function venvPython(venvDir: string = PROJECT_VENV.venvDir): string {
  return process.platform === 'win32' ? join(venvDir, 'Scripts', 'python.exe') : join(venvDir, 'bin', 'python');
}

/** SHA-256 (hex) of a requirements file's bytes; the stamp that marks a virtualenv current. */
export function requirementsHash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The hash recorded in the virtualenv's stamp, or `undefined` when it has none. */
export function readStamp(venvDir: string): string | undefined {
  const path = join(venvDir, STAMP_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/** Runs a command, feeding each output line to `onLine`; resolves with its exit code and last lines. */
function run(cmd: string, args: readonly string[], onLine: (line: string) => void): Promise<{ code: number; tail: string[] }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const take = (line: string) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      onLine(line);
    };
    createInterface({ input: child.stdout }).on('line', take);
    createInterface({ input: child.stderr }).on('line', take);
    child.on('error', (err) => reject(new VenvError(`cannot run ${cmd}: ${err.message}`)));
    child.on('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 : 1), tail }));
  });
}

async function checkPythonVersion(python: string, onProgress: (line: string) => void): Promise<void> {
  const lines: string[] = [];
  const { code } = await run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], (l) => lines.push(l));
  const [major, minor] = (lines[0] ?? '').split('.').map(Number);
  if (code !== 0 || major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) {
    throw new VenvError(`${python} did not report its version (exit ${code}): ${lines.join(' ')}`);
  }
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new VenvError(`${python} is Python ${major}.${minor}; JAX needs ${MIN_PYTHON.join('.')} or newer`);
  }
  onProgress(`using ${python} (Python ${major}.${minor})`);
}

/** Whether the virtualenv exists and its stamp matches its requirements, so `ensureVenv` would do nothing. */
export function venvIsCurrent(layout: VenvLayout = PROJECT_VENV): boolean {
  if (!existsSync(layout.requirements) || !existsSync(venvPython(layout.venvDir))) return false;
  return readStamp(layout.venvDir) === requirementsHash(readFileSync(layout.requirements));
}

/**
 * Creates or updates the virtualenv so that it holds exactly the pinned requirements. Idempotent:
 * when the stamp inside the virtualenv matches the requirements' hash it does nothing. The stamp
 * is written only after pip succeeds, so a failed install is retried on the next call. Only one
 * process builds at a time (a lock file in the virtualenv, see `acquireLock`): another caller
 * waits for it, up to `lockTimeoutMs`, and then finds the stamp up to date.
 */
export async function ensureVenv(options: EnsureVenvOptions = {}): Promise<EnsureVenvResult> {
  const venvDir = options.venvDir ?? PROJECT_VENV.venvDir;
  const requirements = options.requirements ?? PROJECT_VENV.requirements;
  const onProgress = options.onProgress ?? (() => undefined);
  if (!existsSync(requirements)) throw new VenvError(`requirements file not found: ${requirements}`);
  const hash = requirementsHash(readFileSync(requirements));
  const python = venvPython(venvDir);
  const upToDate = () => existsSync(python) && readStamp(venvDir) === hash;
  const done = (): EnsureVenvResult => {
    onProgress(`virtualenv ${venvDir} is up to date`);
    return { status: 'up-to-date', python, requirementsHash: hash };
  };
  if (upToDate()) return done();

  mkdirSync(venvDir, { recursive: true });
  const lockPath = join(venvDir, LOCK_FILE);
  const lock = await acquireLock(lockPath, {
    timeoutMs: options.lockTimeoutMs,
    onWait: (pid) => onProgress(`waiting for process ${pid ?? '(unknown)'}, which is building ${venvDir}`),
  }).catch((e: unknown) => {
    throw e instanceof LockTimeoutError ? new VenvError(`gave up waiting for another build of the virtualenv: ${e.message}`) : e;
  });
  try {
    // The process we waited for may have built exactly these requirements.
    return upToDate() ? done() : await build(venvDir, requirements, hash, options);
  } finally {
    lock.release();
  }
}

/** Creates the virtualenv if it has no interpreter, installs the requirements, then writes the stamp. */
async function build(venvDir: string, requirements: string, hash: string, options: EnsureVenvOptions): Promise<EnsureVenvResult> {
  const onProgress = options.onProgress ?? (() => undefined);
  const python = venvPython(venvDir);
  const exists = existsSync(python);
  if (!exists) {
    const base = options.python ?? 'python3';
    await checkPythonVersion(base, onProgress);
    onProgress(`creating virtualenv ${venvDir}`);
    const created = await run(base, ['-m', 'venv', venvDir], onProgress);
    if (created.code !== 0) throw new VenvError(`${base} -m venv failed (exit ${created.code}): ${created.tail.join('\n')}`);
  }

  onProgress(`installing ${requirements} (this downloads JAX the first time)`);
  const pip = await run(
    python,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--progress-bar', 'off', '-r', requirements, ...(options.pipArgs ?? [])],
    onProgress,
  );
  if (pip.code !== 0) {
    throw new VenvError(`pip install -r ${requirements} failed (exit ${pip.code}):\n${pip.tail.join('\n')}`);
  }
  writeFileSync(join(venvDir, STAMP_FILE), `${hash}\n`);
  onProgress(`virtualenv ${venvDir} is ready`);
  return { status: exists ? 'updated' : 'created', python, requirementsHash: hash };
}

/** `npx tsx runners/src/venv.ts`: builds the project's virtualenv, printing progress to stderr. */
async function main(): Promise<void> {
  try {
    const result = await ensureVenv({
      python: process.env.SEAM_PYTHON,
      onProgress: (line) => process.stderr.write(`[venv] ${line}\n`),
    });
    console.log(`${result.status}: ${result.python}`);
  } catch (err) {
    if (!(err instanceof VenvError)) throw err;
    console.error(err.message);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
