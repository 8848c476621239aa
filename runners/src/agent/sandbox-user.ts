import { spawnSync } from 'node:child_process';

/** The unprivileged host user captures run as when the agent runs as root. */
export interface SandboxUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** The user named `--sandbox-user` unless another is given: a system user that owns nothing. */
export const DEFAULT_SANDBOX_USER = 'seam-sandbox';

/** `getent passwd NAME` → the user, or null when there is none. */
export function lookupUser(name: string): SandboxUser | null {
  const r = spawnSync('getent', ['passwd', name], { encoding: 'utf8', timeout: 5000 });
  const fields = r.status === 0 ? r.stdout.trim().split(':') : [];
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  return fields.length >= 4 && Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : null;
}

/**
 * The host user a root agent runs captures as: `name`, created with `useradd --system
 * --no-create-home` when missing; `nobody` when it cannot be created. Never root: throws when
 * neither resolves to an unprivileged user. Returns null when the agent is not root (captures then
 * run as the agent's own user, inside a user namespace).
 */
export function resolveSandboxUser(name: string, log: (line: string) => void): SandboxUser | null {
  if (process.getuid?.() !== 0) return null;
  let user = lookupUser(name);
  if (!user) {
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', name], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) log(`created the system user ${name} for captures`);
    else log(`could not create the user ${name} (${(r.stderr || r.error?.message || '').trim()}); captures run as nobody`);
    user = lookupUser(name) ?? lookupUser('nobody');
  }
  if (!user || user.uid === 0 || user.gid === 0) throw new Error(`the sandbox user ${user?.name ?? name} must be an unprivileged user (not uid/gid 0)`);
  return user;
}
