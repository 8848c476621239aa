import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureVenv, venvPython } from '../venv';
import { DEFAULT_PYTHON, parseCli } from './config';
import { prepareLocal } from './local';

describe('seam-runner --local', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-local-'));
    writeFileSync(join(dir, 'requirements.txt'), '# nothing beyond the standard library\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // The project's own virtualenv holds JAX; this one holds nothing, so building it needs no network.
  const tempVenv = (o: Parameters<typeof ensureVenv>[0]) =>
    ensureVenv({ ...o, venvDir: join(dir, '.venv'), requirements: join(dir, 'requirements.txt'), pipArgs: ['--no-index'] });

  it('takes the token from the environment only', () => {
    expect(parseCli(['--local', '--server', 'http://127.0.0.1:1'], { SEAM_RUNNER_TOKEN: 'srn_env' })).toMatchObject({ local: true, token: 'srn_env', python: DEFAULT_PYTHON });
    expect(() => parseCli(['--local', '--server', 'http://127.0.0.1:1', '--token', 'srn_argv'], {})).toThrow(/SEAM_RUNNER_TOKEN, not from the command line/);
  });

  it('builds the virtualenv before it connects, reporting progress, and runs with its interpreter', async () => {
    const lines: string[] = [];
    const options = parseCli(['--local', '--server', 'http://127.0.0.1:1', '--name', 'local'], { SEAM_RUNNER_TOKEN: 't' });
    const prepared = await prepareLocal(options, (l) => lines.push(l), tempVenv);
    expect(prepared.python).toBe(venvPython(join(dir, '.venv')));
    expect(existsSync(prepared.python)).toBe(true);
    expect(lines).toContain(`[venv] creating virtualenv ${join(dir, '.venv')}`);
    expect(lines.at(-1)).toBe('local: virtualenv created');
  });

  it('leaves a named interpreter, and a runner without --local, alone', async () => {
    const named = parseCli(['--local', '--server', 'http://x', '--python', '/opt/py/bin/python'], { SEAM_RUNNER_TOKEN: 't' });
    const plain = parseCli(['--server', 'http://x', '--token', 't'], {});
    const noBuild = () => Promise.reject(new Error('must not build'));
    expect(await prepareLocal(named, () => undefined, noBuild)).toBe(named);
    expect(await prepareLocal(plain, () => undefined, noBuild)).toBe(plain);
  });
});
