import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

/** Where the job's scratch folder appears inside the sandbox: the only writable place, also HOME and TMPDIR. */
export const SANDBOX_SCRATCH = '/tmp';

/** Size of the sandbox's own `/dev/shm` (POSIX shared memory, multiprocessing's locks). */
export const SHM_BYTES = 64 * 1024 * 1024;

/** Pieces of `/etc` that the dynamic loader and Python read; nothing with secrets. */
const ETC = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime', '/etc/alternatives', '/etc/hosts', '/etc/nsswitch.conf'];

/**
 * Accelerator device nodes bound into the sandbox when the host has them: NVIDIA GPUs
 * (`/dev/nvidia*`, `/dev/nvidia-caps`), TPUs (`/dev/accel*`, and `/dev/vfio` on v5e and later).
 */
export function acceleratorDevices(dev = '/dev'): string[] {
  let names: string[];
  try {
    names = readdirSync(dev);
  } catch {
    return [];
  }
  return names.filter((n) => /^(nvidia|accel\d|vfio$)/.test(n)).sort().map((n) => join(dev, n));
}

/**
 * The folders a Python interpreter needs, read-only: its installation prefix (where the `python`
 * symlink leads) and, for a virtualenv, the virtualenv itself. Paths under `/usr` are left out
 * (the sandbox binds `/usr` whole).
 */
export function pythonRoots(python: string): string[] {
  const roots = [dirname(dirname(realpathSync(python)))];
  const venv = dirname(dirname(python));
  if (existsSync(join(venv, 'pyvenv.cfg'))) roots.push(venv);
  return roots;
}

/** How one sandbox is laid out and who runs in it. */
export interface BwrapLayout {
  /** The bwrap binary. */
  readonly bwrap: string;
  /** Host folders bound read-only at the same path (interpreter, virtualenv, harness). */
  readonly readOnly: readonly string[];
  /** The job's scratch folder on the host, bound writable at {@link SANDBOX_SCRATCH}. */
  readonly scratch: string;
  /** Device nodes bound with device access (see {@link acceleratorDevices}). */
  readonly devices: readonly string[];
  /** Keep the host's network (`--allow-network`); by default the sandbox has none. */
  readonly network: boolean;
  /**
   * When the agent runs as root: the unprivileged host user the program becomes inside (bwrap
   * sets up the namespaces as root without a user namespace, then `setpriv` drops to this user).
   * Null: bwrap runs as the agent's own unprivileged user, in a user namespace.
   */
  readonly user: { readonly uid: number; readonly gid: number } | null;
}

function entryKind(path: string): 'link' | 'dir' | null {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : null;
  } catch {
    return null;
  }
}

/** Drops nested folders whose ancestor is already listed, and sorts. */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths.map((p) => posix.normalize(p)))].sort();
  return sorted.filter((p, i) => !sorted.slice(0, i).some((q) => p.startsWith(q.endsWith('/') ? q : `${q}/`)));
}

/** Every ancestor of `paths` below `/`, parents first, so bwrap creates them traversable (0755). */
function ancestors(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) out.add(`/${parts.slice(0, i).join('/')}`);
  }
  return [...out].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/**
 * The bwrap command line (before the program's own argv) for one capture: every namespace
 * unshared (network unless `network`), a read-only root holding `/usr` and its `/bin`, `/lib*`
 * links, a few `/etc` files, the interpreter, the virtualenv and the harness; a fresh `/proc` for
 * the private PID namespace, a minimal `/dev` (plus accelerator nodes), `/sys` only for CPU
 * topology (whole and read-only when accelerators are present), and the scratch folder as the one
 * writable place. The program is killed with bwrap, sits in its own session and has no capabilities.
 */
export function bwrapArgv(l: BwrapLayout): string[] {
  const usr = ['/usr'];
  const binds = outermost([...usr, ...l.readOnly]).filter((p) => !usr.includes(p) && !p.startsWith('/usr/'));
  const a: string[] = [l.bwrap, '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (!l.network) a.push('--unshare-net');
  // Unprivileged: a user namespace, and no more of them inside. As root: no user namespace (its
  // uid 0 would be the host's root); setpriv below becomes the unprivileged user.
  if (!l.user) a.push('--unshare-user', '--disable-userns');
  a.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (l.user) a.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID');
  a.push('--ro-bind', '/usr', '/usr');
  // Merged /usr: the same links as the host; otherwise the folders themselves, read-only.
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    const kind = entryKind(top);
    if (kind === 'link') a.push('--symlink', readlinkSync(top), top);
    else if (kind === 'dir') a.push('--ro-bind', top, top);
  }
  for (const e of ETC) a.push('--ro-bind-try', e, e);
  // The scratch folder goes in before the read-only binds, so that one under /tmp (a checkout or a
  // virtualenv there) is bound on top of it rather than hidden by it.
  a.push('--bind', l.scratch, SANDBOX_SCRATCH);
  for (const d of ancestors(binds)) if (d !== SANDBOX_SCRATCH) a.push('--perms', '0755', '--dir', d);
  for (const p of binds) a.push('--ro-bind', p, p);
  a.push('--proc', '/proc', '--dev', '/dev');
  for (const d of l.devices) a.push('--dev-bind', d, d);
  a.push('--remount-ro', '/dev', '--size', String(SHM_BYTES), '--perms', '1777', '--tmpfs', '/dev/shm');
  if (l.devices.length > 0) a.push('--ro-bind', '/sys', '/sys');
  else a.push('--ro-bind-try', '/sys/devices/system/cpu', '/sys/devices/system/cpu');
  a.push('--remount-ro', '/', '--chdir', SANDBOX_SCRATCH);
  if (l.user) a.push('/usr/bin/setpriv', `--reuid=${l.user.uid}`, `--regid=${l.user.gid}`, '--clear-groups', '--inh-caps=-all', '--');
  return a;
}
