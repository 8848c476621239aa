import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, PROJECT_VENV, RUNNERS_DIR, STAMP_FILE, VenvError, ensureVenv, readStamp, requirementsHash, venvPython } from './venv';

const VENV_MODULE = fileURLToPath(new URL('./venv.ts', import.meta.url));

/** `ensureVenv` in a separate Node process: resolves with its progress lines and its status line. */
function ensureVenvInChild(venvDir: string, requirements: string): Promise<{ code: number | null; lines: string[] }> {
  const script = [
    `const { ensureVenv } = await import(${JSON.stringify(VENV_MODULE)});`,
    `const r = await ensureVenv({ venvDir: ${JSON.stringify(venvDir)}, requirements: ${JSON.stringify(requirements)}, pipArgs: ['--no-index'],`,
    '  onProgress: (l) => console.log(l) });',
    'console.log(`status: ${r.status}`);',
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: RUNNERS_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, lines: out.split('\n').filter(Boolean) })));
}

describe('ensureVenv', () => {
  let dir: string;
  let venvDir: string;
  let requirements: string;
  const offline = { pipArgs: ['--no-index'] } as const;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-venv-'));
    venvDir = join(dir, '.venv');
    requirements = join(dir, 'requirements.txt');
    writeFileSync(requirements, '# nothing beyond the standard library\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a virtualenv, installs the requirements and stamps them', async () => {
    const lines: string[] = [];
    const result = await ensureVenv({ venvDir, requirements, ...offline, onProgress: (l) => lines.push(l) });
    expect(result.status).toBe('created');
    expect(result.python).toBe(venvPython(venvDir));
    expect(existsSync(result.python)).toBe(true);
    expect(readStamp(venvDir)).toBe(requirementsHash(readFileSync(requirements)));
    expect(lines.some((l) => l.startsWith('creating virtualenv'))).toBe(true);
  });

  it('does nothing when the stamp matches the requirements', async () => {
    const lines: string[] = [];
    const result = await ensureVenv({ venvDir, requirements, ...offline, onProgress: (l) => lines.push(l) });
    expect(result.status).toBe('up-to-date');
    expect(lines).toEqual([`virtualenv ${venvDir} is up to date`]);
  });

  it('reports a failed install clearly and keeps the previous stamp', async () => {
    const before = readStamp(venvDir);
    writeFileSync(requirements, 'seam-no-such-package==9.9.9\n');
    const failure = await ensureVenv({ venvDir, requirements, ...offline }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(VenvError);
    expect((failure as Error).message).toMatch(/seam-no-such-package/);
    expect(readStamp(venvDir)).toBe(before);
  });

  it('reinstalls when the requirements change', async () => {
    writeFileSync(requirements, '# changed\n');
    const result = await ensureVenv({ venvDir, requirements, ...offline });
    expect(result.status).toBe('updated');
    expect(readFileSync(join(venvDir, STAMP_FILE), 'utf8').trim()).toBe(requirementsHash('# changed\n'));
  });

  it('names a missing requirements file', async () => {
    await expect(ensureVenv({ venvDir, requirements: join(dir, 'missing.txt') })).rejects.toThrow(/requirements file not found/);
  });

  it('rejects an interpreter that does not exist', async () => {
    await expect(ensureVenv({ venvDir: join(dir, 'other'), requirements, python: join(dir, 'no-python') })).rejects.toThrow(VenvError);
  });

  it('pins the project to jax and jaxlib 0.10.2', () => {
    const pins = readFileSync(PROJECT_VENV.requirements, 'utf8');
    expect(pins).toMatch(/^jax==0\.10\.2$/m);
    expect(pins).toMatch(/^jaxlib==0\.10\.2$/m);
  });
});

describe('ensureVenv in two processes at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seam-venv-race-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the virtualenv once: the second process waits for the first and finds it up to date', async () => {
    const venvDir = join(dir, '.venv');
    const requirements = join(dir, 'requirements.txt');
    writeFileSync(requirements, '# nothing beyond the standard library\n');
    const here: string[] = [];
    const [child, local] = await Promise.all([
      ensureVenvInChild(venvDir, requirements),
      ensureVenv({ venvDir, requirements, pipArgs: ['--no-index'], onProgress: (l) => here.push(l) }),
    ]);
    expect(child.code).toBe(0);
    const statuses = [local.status, child.lines.at(-1)?.replace('status: ', '')].sort();
    expect(statuses).toEqual(['created', 'up-to-date']);
    const creations = [...here, ...child.lines].filter((l) => l.startsWith('creating virtualenv'));
    expect(creations).toHaveLength(1);
    expect([...here, ...child.lines].some((l) => l.startsWith('waiting for process'))).toBe(true);
    expect(readStamp(venvDir)).toBe(requirementsHash(readFileSync(requirements)));
    expect(existsSync(join(venvDir, LOCK_FILE))).toBe(false);
  });
});
