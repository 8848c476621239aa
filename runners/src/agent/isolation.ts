import { spawnSync } from 'node:child_process';
import { accessSync, constants, rmSync } from 'node:fs';
import { acceleratorDevices, bwrapArgv } from './bwrap';
import { cgroupLayer, probeCgroups, type CgroupSupport } from './cgroups';
import { applyQuota } from './quota';
import { resolveSandboxUser, type SandboxUser } from './sandbox-user';
import { makeScratch } from './scratch';

/** What this host lets the agent do to confine a capture; probed once per agent. */
export interface Isolation {
  /** The bubblewrap binary when it works here, else null (captures then run unconfined). */
  readonly bwrap: string | null;
  /** Why bubblewrap is not used, when it is not. */
  readonly bwrapProblem: string | null;
  /** The unprivileged user captures run as when the agent is root; null: the agent's own user. */
  readonly user: SandboxUser | null;
  readonly cgroups: CgroupSupport;
  /** Whether `prlimit` exists to set rlimits from outside the child. */
  readonly prlimit: boolean;
  /** `--allow-network`: captures keep the host's network. */
  readonly network: boolean;
  /** Accelerator device nodes bound into the sandbox. */
  readonly devices: readonly string[];
  /** Whether scratch folders get a sized tmpfs (a root agent that may mount); else their size is watched. */
  readonly tmpfsQuota: boolean;
}

/** What {@link describeIsolation} says: for the registration and the startup log line. */
export interface IsolationReport {
  /** True when captures run inside bubblewrap. */
  readonly sandboxed: boolean;
  /** Short names of the layers in force, e.g. `bwrap`, `netns`, `uid:seam-sandbox`, `cgroup-v1:memory,pids,cpu`, `tmpfs-quota`. */
  readonly layers: readonly string[];
  /** One sentence for people: what is enforced, and what is not. */
  readonly text: string;
}

/** Options of {@link probeIsolation}. */
export interface IsolationOptions {
  /** The host user captures run as when the agent is root (created when missing). */
  readonly sandboxUser: string;
  readonly network: boolean;
  /** The bubblewrap binary to use (`SEAM_BWRAP`); default `/usr/bin/bwrap`, else `bwrap` on PATH. */
  readonly bwrap?: string;
  readonly log: (line: string) => void;
}

function runs(argv: readonly string[], cwd?: string): string | null {
  const r = spawnSync(argv[0] ?? '', argv.slice(1), { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' }, ...(cwd ? { cwd } : {}) });
  if (r.status === 0) return null;
  return (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split('\n').slice(-2).join(' ');
}

function findBwrap(chosen: string | undefined): string | null {
  const candidates = chosen ? [chosen] : ['/usr/bin/bwrap', ...(process.env.PATH ?? '').split(':').filter(Boolean).map((d) => `${d}/bwrap`)];
  for (const p of candidates) {
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // Not here.
    }
  }
  return null;
}

/**
 * Finds out how this host confines captures: a working bubblewrap (tried with the real layout on
 * an empty scratch folder, as the sandbox user when the agent is root), the cgroup hierarchy we
 * may write, prlimit, and accelerator device nodes.
 */
export function probeIsolation(o: IsolationOptions): Isolation {
  const base = { cgroups: probeCgroups(), prlimit: runs(['prlimit', '--nofile=256', 'true']) === null, network: o.network, devices: acceleratorDevices() };
  const bwrap = findBwrap(o.bwrap);
  const unconfined = { ...base, bwrap: null, user: null, tmpfsQuota: false };
  if (!bwrap) return { ...unconfined, bwrapProblem: o.bwrap ? `bubblewrap is not at ${o.bwrap} (SEAM_BWRAP)` : 'bubblewrap is not installed (apt-get install bubblewrap)' };
  const user = resolveSandboxUser(o.sandboxUser, o.log);
  const scratch = makeScratch();
  const quota = applyQuota(scratch, 1024 * 1024, user);
  try {
    const problem = runs([...bwrapArgv({ bwrap, readOnly: [], scratch, devices: base.devices, network: o.network, user }), '/usr/bin/true'], scratch);
    if (problem) return { ...unconfined, bwrapProblem: `bubblewrap does not work here: ${problem}` };
    return { ...base, bwrap, bwrapProblem: null, user, tmpfsQuota: quota.mounted };
  } finally {
    quota.release();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The layers in force for captures under `i`, and a sentence that says what is enforced where
 * a layer is missing.
 */
export function describeIsolation(i: Isolation): IsolationReport {
  const layers: string[] = [];
  const said: string[] = [];
  if (i.bwrap) {
    layers.push('bwrap', 'pidns', 'mountns-ro');
    if (!i.network) layers.push('netns');
    layers.push(i.user ? `uid:${i.user.name}` : 'userns');
    said.push(`bubblewrap (private PID, mount, IPC, UTS namespaces; ${i.network ? 'host network (--allow-network)' : 'no network'}; read-only file system but the scratch folder; `
      + `${i.user ? `runs as ${i.user.name} (uid ${i.user.uid})` : 'runs as this user in a user namespace'})`);
  } else {
    said.push(`NOT SANDBOXED: ${i.bwrapProblem ?? 'no bubblewrap'}; captures run as this user with its files, processes and network in reach`);
  }
  const cg = cgroupLayer(i.cgroups);
  if (cg) {
    layers.push(cg.replace(/^cgroup v(\d) \((.*)\)$/, (_, v: string, list: string) => `cgroup-v${v}:${list.replace(/ /g, '')}`));
    said.push(`${cg} limits on memory, processes and CPU`);
  } else {
    layers.push('cgroup:none');
    said.push(`no cgroup (${i.cgroups.version === 0 ? i.cgroups.reason : ''}): memory is bounded by RLIMIT_AS only, processes by RLIMIT_NPROC ${i.user ? 'of the sandbox user' : '(not set: it would count this user\'s own processes)'}, CPU time by the timeout and RLIMIT_CPU`);
  }
  if (i.tmpfsQuota) {
    layers.push('tmpfs-quota');
    said.push('scratch quota: a sized tmpfs');
  } else {
    layers.push('watch-quota');
    said.push('scratch quota: a size watcher that stops the job, plus RLIMIT_FSIZE');
  }
  if (i.prlimit) layers.push('rlimits');
  if (i.devices.length > 0) said.push(`accelerator devices bound: ${i.devices.join(' ')}`);
  return { sandboxed: i.bwrap !== null, layers, text: said.join('; ') };
}
