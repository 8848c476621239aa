/**
 * Provisions what the test suite needs on a fresh machine, so that `npm test` alone passes: Debian's
 * Chromium (for the browser tests), bubblewrap (the capture sandbox) and fonts through apt-get when
 * missing, and the JAX virtualenv in `runners/.venv`. Runs as `pretest`; quick when all is there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureVenv } from '@seam/runners';

/** Debian packages the tests use, each with the file that shows it is installed. */
const PACKAGES: readonly (readonly [string, string])[] = [
  ['chromium', '/usr/bin/chromium'],
  ['fonts-dejavu-core', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'],
  ['bubblewrap', '/usr/bin/bwrap'],
];

function run(cmd: string, args: readonly string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) throw new Error(`provision: ${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function provisionPackages(): void {
  const missing = PACKAGES.filter(([, file]) => !existsSync(file)).map(([name]) => name);
  if (missing.length === 0) return;
  console.log(`[provision] installing ${missing.join(', ')} with apt-get`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (args: readonly string[]) => (sudo.length ? run(sudo[0] as string, [...sudo.slice(1), 'apt-get', ...args]) : run('apt-get', args));
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

provisionPackages();
const venv = await ensureVenv({ onProgress: (line) => console.log(`[provision] ${line}`) });
console.log(`[provision] ready: ${PACKAGES.map(([n]) => n).join(', ')}; JAX virtualenv ${venv.status}`);
