import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers';
import { cleanClone } from './clean-clone';
import { promisedExit, runnableBlocks, type RunnableBlock } from './readme-blocks';

/**
 * The README's commands, as shown, from a clean clone of the committed tree: the blocks it marks
 * runnable (see `readme-blocks.ts`) are read from the clone's own README; the start command runs
 * until the server prints the line to open and answers there; every other command runs to its
 * end with the exit status its comment promises (0 unless it says `(exit N)`) and the output it
 * describes. A command the README adds without an expectation here fails the test, so the two
 * cannot drift apart. `npm ci` is replaced by a `node_modules` of links to the installed packages
 * (the same lockfile, checked), with the clone's own workspace packages: it proves the commands and
 * the files they name are in the repository, not that the registry still serves the lockfile.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a fresh shell has: no npm-run variables (`INIT_CWD` would point the CLIs at this checkout), no Seam settings. */
function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|INIT_CWD$|SEAM_|VITEST|NODE_ENV$)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one README line with bash in the clone, as a person would paste it. */
function sh(command: string, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: freshEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What each runnable command must print, by the command's shape; `clone` is where it ran. */
const EXPECTATIONS: readonly { readonly command: RegExp; check(out: string, clone: string): void }[] = [
  {
    command: /^npx seam analyze \S+\.txt\s+#/,
    check: (out) => {
      expect(out).toMatch(/^\S+hlo-opt\.txt: hlo-opt, \d+ lines/);
      for (const part of ['outline:', 'fusions:', 'spill candidates:']) expect(out).toContain(part);
    },
  },
  {
    command: /^npx seam analyze (\S+) --json\s+#/,
    check: (out, clone) => {
      const rows = out.trim().split('\n').map((l) => JSON.parse(l) as { file: string; kind: string; index?: unknown; error?: string });
      const files = readdirSync(join(clone, 'test/fixtures/ir/mlp')).filter((f) => f.endsWith('.txt')).sort();
      expect(files.length).toBeGreaterThan(1);
      expect(rows.map((r) => r.file)).toEqual(files.map((f) => `test/fixtures/ir/mlp/${f}`));
      for (const r of rows) expect(r).toMatchObject({ kind: expect.any(String), index: expect.any(Object) });
      expect(rows.some((r) => 'error' in r)).toBe(false);
    },
  },
  {
    command: /^npx seam link /,
    check: (out) => {
      expect(out.split('\n')[0]).toMatch(/^line\s+equation\s+source\s+StableHLO\s+HLO/);
      expect(out).toMatch(/\n\d+\s+d = dot_general\s+program\.py:5\s+%0 stablehlo\.dot_general\s+\S+/);
    },
  },
  {
    command: /^npx seam gate /,
    check: (out) => expect(out).toMatch(/\n\s*result\s+FAIL\s/),
  },
  {
    command: /runner-token -- create tpu-v5e-0 --data \.\/data/,
    check: (out) => expect(out).toMatch(/runner token for "tpu-v5e-0"[^\n]*\n\s*srn_[\w-]{32,}\n/),
  },
  {
    command: /invite -- create --uses 30 /,
    check: (out) => expect(out).toMatch(/invitation \w+ for 30 rooms[^\n]*\n\s*inv_[\w-]{32,}\n/),
  },
  {
    command: /invite -- list --data \.\/data/,
    check: (out) => expect(out).toMatch(/\t30\/30 left\texpires [^\t]+\tlive\t"week 3"/),
  },
];

let clone: string;
let blocks: RunnableBlock[];
let server: ChildProcess | undefined;

beforeAll(() => {
  clone = cleanClone(ROOT);
  blocks = runnableBlocks(readFileSync(join(clone, 'README.md'), 'utf8'));
}, 60_000);

afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    process.kill(-server.pid, 'SIGTERM');
    await exited;
  }
  if (clone) rmSync(clone, { recursive: true, force: true });
});

describe('the README, from a clean clone', () => {
  it('marks the start command and the command-line, runner-token and invitation blocks as runnable', () => {
    expect(blocks.filter((b) => b.mode === 'start').map((b) => b.commands)).toEqual([['npm ci && npm start']]);
    const commands = blocks.filter((b) => b.mode === 'run').flatMap((b) => b.commands);
    expect(commands.some((c) => c.startsWith('npx seam analyze'))).toBe(true);
    expect(commands.some((c) => c.includes('runner-token -- create'))).toBe(true);
    expect(commands.some((c) => c.includes('invite -- create'))).toBe(true);
  });

  it('starts with `npm start`, prints the one line to open, and serves the app and the API there', async () => {
    const [command] = blocks.find((b) => b.mode === 'start')!.commands;
    // `npm ci` is what cleanClone stands in for; the rest runs as written, on a free port, without the local runner (which would build a JAX virtualenv).
    const start = command!.replace(/^npm ci && /, '');
    expect(start).toBe('npm start');
    server = spawn('bash', ['-c', start], { cwd: clone, env: freshEnv({ PORT: '0', SEAM_RUNNER: 'off', SEAM_LOG_LEVEL: 'warn' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout: string[] = [];
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: server.stdout! }).on('line', (l) => stdout.push(l));
    await waitFor(() => {
      if (server!.exitCode !== null) throw new Error(`npm start exited with ${server!.exitCode}:\n${stderr}`);
      return stdout.some((l) => l.startsWith('Seam is running: '));
    }, 'npm start to print the line to open', 150_000);

    const open = stdout.filter((l) => l.startsWith('Seam is running: '));
    expect(open).toHaveLength(1);
    const url = /^Seam is running: open (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(open[0]!)?.[1];
    expect(url, open[0]).toBeDefined();
    expect(stdout.some((l) => l.startsWith('{"listening":'))).toBe(true);

    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Seam</title>');
    const created = await fetch(`${url}api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'from the README' }) });
    expect(created.status).toBe(201);
    const { links } = (await created.json()) as { links: Record<string, string> };
    expect(links.owner?.startsWith(`${url}r/`)).toBe(true);
  }, 200_000);

  it('runs every other runnable command as shown, with the exit status and output the README promises', async () => {
    const commands = blocks.filter((b) => b.mode === 'run').flatMap((b) => b.commands);
    for (const command of commands) {
      const expectation = EXPECTATIONS.find((e) => e.command.test(command));
      expect(expectation, `the README test knows what "${command}" prints`).toBeDefined();
      const ran = await sh(command, clone);
      expect(ran.code, `${command}\n${ran.stderr}`).toBe(promisedExit(command));
      expectation!.check(ran.stdout, clone);
    }
  }, 300_000);
});
