/**
 * Provisions what the test suite needs on a fresh machine, so that `npm test` alone passes: Debian's
 * Chromium (for the browser tests), bubblewrap (the capture sandbox), fonts, and PostgreSQL, Redis
 * and HAProxy (the scaled mode's harness) through apt-get when missing, without letting the
 * packages start their system services (the tests start their own, on free loopback ports); the
 * system user the test PostgreSQL runs as when the tests run as root; and the JAX virtualenv in
 * `runners/.venv`. Runs as `pretest`; quick when all is there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureVenv } from '@seam/runners';
import { HAPROXY, POSTGRES_USER, REDIS_SERVER, postgresBinDir } from './helpers/scale/binaries';

/** Debian packages the tests use, each with the check that shows it is installed. */
const PACKAGES: readonly (readonly [string, () => boolean])[] = [
  ['chromium', () => existsSync('/usr/bin/chromium')],
  ['fonts-dejavu-core', () => existsSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf')],
  ['bubblewrap', () => existsSync('/usr/bin/bwrap')],
  // Any major version: the harness finds the newest under /usr/lib/postgresql.
  ['postgresql', () => postgresBinDir() !== undefined],
  ['redis-server', () => existsSync(REDIS_SERVER)],
  ['haproxy', () => existsSync(HAPROXY)],
];

/**
 * While present and exiting 101, invoke-rc.d starts no service: installing postgresql or
 * redis-server must not leave daemons holding ports 5432 and 6379.
 */
const POLICY_RC = '/usr/sbin/policy-rc.d';

function run(cmd: string, args: readonly string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) throw new Error(`provision: ${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

const asRoot = process.getuid?.() === 0;
/** Runs a command as root: directly when we are, else through `sudo -n`. */
const root = (cmd: string, args: readonly string[]): void => (asRoot ? run(cmd, args) : run('sudo', ['-n', cmd, ...args]));

function provisionPackages(): void {
  const missing = PACKAGES.filter(([, installed]) => !installed()).map(([name]) => name);
  if (missing.length === 0) return;
  console.log(`[provision] installing ${missing.join(', ')} with apt-get`);
  const ownPolicy = !existsSync(POLICY_RC);
  if (ownPolicy) root('sh', ['-c', `printf '#!/bin/sh\nexit 101\n' > ${POLICY_RC} && chmod 755 ${POLICY_RC}`]);
  try {
    root('apt-get', ['update', '-qq']);
    root('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing]);
  } finally {
    if (ownPolicy) root('rm', ['-f', POLICY_RC]);
  }
}

/** PostgreSQL refuses to run as root: the harness runs it as this unprivileged system user then. */
function provisionPostgresUser(): void {
  if (!asRoot || spawnSync('id', ['-u', POSTGRES_USER]).status === 0) return;
  console.log(`[provision] adding the system user ${POSTGRES_USER} for the test PostgreSQL`);
  run('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', POSTGRES_USER]);
}

provisionPackages();
provisionPostgresUser();
const venv = await ensureVenv({ onProgress: (line) => console.log(`[provision] ${line}`) });
console.log(`[provision] ready: ${PACKAGES.map(([n]) => n).join(', ')}; JAX virtualenv ${venv.status}`);
