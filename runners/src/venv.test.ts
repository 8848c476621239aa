import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_VENV, STAMP_FILE, VenvError, ensureVenv, readStamp, requirementsHash, venvPython } from './venv';

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
