import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModuleDiff } from '@seam/shared/ir';
import { REPO_ROOT, seam } from './seam-process';

const dump = (name: string): string => join(REPO_ROOT, 'test/fixtures/diff', name, 'hlo-opt.txt');

// Each case starts Node and tsx afresh; leave room for a loaded machine.
describe('seam diff on real captures', { timeout: 90_000 }, () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'seam-diff-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints Markdown in which the S×S score spill of naive attention disappears', async () => {
    const { code, stdout, stderr } = await seam('diff', dump('attention'), dump('attention_online'));
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^# Diff: .*attention\/hlo-opt\.txt → .*attention_online\/hlo-opt\.txt/);
    expect(stdout).toMatch(/\| disappeared \| dot_general\.2 f32\[8192,8192\]\{1,0\} \(line 154\) \| - \| 268,435,456 B \(256 MiB\) \| 536,870,912 B \(512 MiB\) → - \|/);
    expect(stdout).toMatch(/\| appeared \| - \| dot_general\.6 f32\[8192,1024\]\{1,0\} \(line 211, in while\.1 ×8\) \|/);
  });

  it('prints the whole diff as JSON with --json: jax.checkpoint adds the recomputed tanh of both layers', async () => {
    const { code, stdout } = await seam('diff', dump('mlp'), dump('mlp_remat'), '--json');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const { a, b, diff } = JSON.parse(lines[0] ?? '') as { a: string; b: string; diff: ModuleDiff };
    expect([a, b]).toEqual([dump('mlp'), dump('mlp_remat')]);
    expect(diff.added.filter((i) => i.opcode === 'tanh').map((i) => [i.name, i.line])).toEqual([['tanh.0', 60], ['tanh.1', 108]]);
    expect(diff.summary.removed).toBe(0);
  });

  it('says a renamed copy of a module is the same module', async () => {
    const renamed = join(dir, 'renamed.txt');
    const text = await readFile(dump('attention'), 'utf8');
    await writeFile(renamed, text.replace(/%([\w.-]+)/g, (_, n: string) => `%r_${n.replace(/[.-]/g, '_')}`));
    const { code, stdout } = await seam('diff', dump('attention'), renamed);
    expect(code).toBe(0);
    expect(stdout).toContain('The modules compute the same ops, fused and spilled alike.');
    expect(stdout).toMatch(/## Removed \(only in A\): 0\n/);
    expect(stdout).toMatch(/## Added \(only in B\): 0\n/);
  });

  it('refuses a file that is not HLO, or missing, with its name and nothing on stdout', async () => {
    const jaxpr = join(REPO_ROOT, 'test/fixtures/joins/two_dots/jaxpr.txt');
    const notHlo = await seam('diff', dump('mlp'), jaxpr);
    expect(notHlo.code).toBe(1);
    expect(notHlo.stdout).toBe('');
    expect(notHlo.stderr).toMatch(/jaxpr\.txt looks like jaxpr, not HLO/);
    const missing = await seam('diff', join(dir, 'nope.txt'), dump('mlp'));
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/cannot read .*nope\.txt/);
    const usage = await seam('diff', dump('mlp'));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/diff needs exactly two files: A B/);
  });

  it('diffs a truncated dump, saying its parse errors on stderr', async () => {
    const cut = join(dir, 'cut.txt');
    const text = await readFile(dump('mlp'), 'utf8');
    await writeFile(cut, `${text.slice(0, text.length >> 1)}\n  %broken = f32[2]{0} add(`);
    const { code, stdout, stderr } = await seam('diff', cut, dump('mlp'));
    expect(code).toBe(0);
    expect(stderr).toMatch(/cut\.txt: \d+\+? parse errors; first: /);
    expect(stdout).toMatch(/## Added \(only in B\): [1-9]/);
  });
});
