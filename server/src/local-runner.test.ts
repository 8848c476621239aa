import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNNER_SCRIPT, spawnLocalRunner } from './local-runner';

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

function readdirRecursive(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => join(dir, f));
}
