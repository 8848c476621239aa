import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RUNNER_SCRIPT, spawnLocalRunner, superviseLocalRunner } from './local-runner';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Every relative or package import specifier in a TypeScript source. */
function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? '');
}

describe('the server starts the local runner as a child process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seam-local-runner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the runner script from the checkout with --local, the token in the environment only', async () => {
    // A stand-in script that reports how it was started, then exits.
    const script = join(dir, 'report.mjs');
    writeFileSync(script, "console.log(JSON.stringify({ argv: process.argv.slice(2), token: process.env.SEAM_RUNNER_TOKEN, kept: process.env.KEPT }));\nconsole.error('a progress line');\n");
    const lines: string[] = [];
    let runner: ReturnType<typeof spawnLocalRunner> | undefined;
    const exit = await new Promise<number | null>((resolve) => {
      runner = spawnLocalRunner({
        serverUrl: 'http://127.0.0.1:9', token: 'srn_secret', env: { KEPT: 'yes' }, script,
        onLine: (l) => lines.push(l), onExit: (code) => resolve(code),
      });
    });
    await runner?.stop();
    expect(exit).toBe(0);
    const report = JSON.parse(lines.find((l) => l.startsWith('{')) ?? '{}') as { argv: string[]; token: string; kept: string };
    expect(report.argv).toEqual(['--local', '--server', 'http://127.0.0.1:9', '--name', 'local']);
    expect(report.argv.join(' ')).not.toContain('srn_secret');
    expect(report.token).toBe('srn_secret');
    expect(report.kept).toBe('yes');
    expect(lines).toContain('a progress line');
    expect(existsSync(RUNNER_SCRIPT)).toBe(true);
  });

  it('imports nothing from the runners or web workspaces', () => {
    const pkg = JSON.parse(readFileSync(join(SERVER_DIR, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(Object.keys(deps).filter((d) => d === '@seam/runners' || d === '@seam/web')).toEqual([]);
    const tsconfig = readFileSync(join(SERVER_DIR, 'tsconfig.json'), 'utf8');
    expect(tsconfig).not.toMatch(/\.\.\/(runners|web)\b/);
    const sources = ['src', 'bin'].flatMap((d) => (readdirRecursive(join(SERVER_DIR, d))));
    const offending = sources.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8')).filter((s) => /^@seam\/(runners|web)\b|\/(runners|web)\/src\b/.test(s)).map((s) => `${file}: ${s}`));
    expect(offending).toEqual([]);
    expect(sources.length).toBeGreaterThan(20);
  });
});

/** A pino logger whose JSON lines are kept in `lines`. */
function memoryLog() {
  const lines: { level: number; msg: string; restartInMs?: number; pid?: number }[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(chunk.toString());
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines, raw };
}

/** Lines of a file the stand-in runners append to, one per start (`missing` → none yet). */
function startsIn(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('the server keeps the local runner running', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seam-supervise-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const quick = { firstDelayMs: 20, maxDelayMs: 80, stableMs: 5_000, maxQuickExits: 4 };

  it('starts a runner again after it is killed, and not after stop()', async () => {
    const starts = join(dir, 'killed.starts');
    const script = join(dir, 'long.mjs');
    writeFileSync(script, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(starts)}, process.pid + '\\n');\nsetInterval(() => {}, 1000);\n`);
    const { log, lines, raw } = memoryLog();
    const runner = superviseLocalRunner({ serverUrl: 'http://127.0.0.1:9', token: 'srn_secret', env: {}, script, log, onLine: () => undefined, restart: quick });
    try {
      await vi.waitFor(() => expect(startsIn(starts)).toHaveLength(1), { timeout: 10_000 });
      const first = runner.pid;
      expect(first).toBe(Number(startsIn(starts)[0]));
      process.kill(first ?? 0, 'SIGKILL');
      await vi.waitFor(() => expect(startsIn(starts)).toHaveLength(2), { timeout: 10_000 });
      expect(runner.pid).toBe(Number(startsIn(starts)[1]));
      expect(runner.pid).not.toBe(first);
      const exit = lines.find((l) => l.msg === 'the local runner exited; restarting it');
      expect(exit).toMatchObject({ signal: 'SIGKILL', restartInMs: quick.firstDelayMs });
    } finally {
      await runner.stop();
    }
    expect(runner.pid).toBeUndefined();
    await new Promise((r) => setTimeout(r, quick.maxDelayMs * 3));
    expect(startsIn(starts)).toHaveLength(2);
    expect(raw.join('')).not.toContain('srn_secret');
  });

  it('doubles the delay after quick exits, and gives up with one error after too many in a row', async () => {
    const starts = join(dir, 'broken.starts');
    const script = join(dir, 'broken.mjs');
    writeFileSync(script, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(starts)}, 'x\\n');\nconsole.error('virtualenv is broken');\nprocess.exit(1);\n`);
    const { log, lines } = memoryLog();
    const output: string[] = [];
    const runner = superviseLocalRunner({ serverUrl: 'http://127.0.0.1:9', token: 'srn_secret', env: {}, script, log, onLine: (l) => output.push(l), restart: quick });
    try {
      await vi.waitFor(() => expect(lines.some((l) => l.level === 50)).toBe(true), { timeout: 10_000 });
      expect(lines.filter((l) => l.restartInMs !== undefined).map((l) => l.restartInMs)).toEqual([20, 40, 80]);
      expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
        'the local runner exited 4 times in a row within 5 s of starting; not restarting it (its output above says why; fix that and restart the server)',
      ]);
      expect(output).toEqual(Array(4).fill('virtualenv is broken'));
      await new Promise((r) => setTimeout(r, quick.maxDelayMs * 3));
      expect(startsIn(starts)).toHaveLength(4);
    } finally {
      await runner.stop();
    }
  });

  it('counts the delay from the first again once a runner stayed up long enough', async () => {
    const starts = join(dir, 'flaky.starts');
    const script = join(dir, 'flaky.mjs');
    const policy = { ...quick, stableMs: 2_000 };
    // Runs 1 and 2 exit at once, run 3 stays up past stableMs, run 4 exits at once, later runs stay.
    writeFileSync(script, [
      "import { appendFileSync, existsSync, readFileSync } from 'node:fs';",
      `const file = ${JSON.stringify(starts)};`,
      "const n = (existsSync(file) ? readFileSync(file, 'utf8').split('\\n').filter(Boolean).length : 0) + 1;",
      "appendFileSync(file, n + '\\n');",
      `if (n === 3) setTimeout(() => process.exit(3), ${policy.stableMs + 200});`,
      'else if (n < 5) process.exit(1);',
      'else setInterval(() => {}, 1000);',
    ].join('\n'));
    const { log, lines } = memoryLog();
    const runner = superviseLocalRunner({ serverUrl: 'http://127.0.0.1:9', token: 't', env: {}, script, log, onLine: () => undefined, restart: policy });
    try {
      await vi.waitFor(() => expect(startsIn(starts)).toHaveLength(5), { timeout: 10_000 });
      expect(lines.filter((l) => l.restartInMs !== undefined).map((l) => l.restartInMs)).toEqual([20, 40, 20, 20]);
      expect(lines.some((l) => l.level === 50)).toBe(false);
    } finally {
      await runner.stop();
    }
  });
});

function readdirRecursive(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => join(dir, f));
}
