import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './scratch';

/** Per-job bounds the kernel enforces through a cgroup. */
export interface CgroupLimits {
  /** Resident memory (page cache and tmpfs scratch included), bytes; 0 for none. Swap is not granted beyond it. */
  readonly memoryBytes: number;
  /** Processes and threads together; 0 for none. */
  readonly pids: number;
  /** CPU quota in cores (fractions allowed); 0 for none. The job always gets a tenth of the default CPU weight (see {@link JOB_CPU_WEIGHT}). */
  readonly cpus: number;
}

const CONTROLLERS = ['memory', 'pids', 'cpu'] as const;
type Controller = (typeof CONTROLLERS)[number];

/**
 * Where job cgroups can be made on this host: under the agent's own cgroup in the unified (v2)
 * hierarchy when it is delegated to us, else under its own cgroup in each writable v1 hierarchy;
 * version 0 with the reason when neither is writable.
 */
export type CgroupSupport =
  | { readonly version: 2; readonly base: string; readonly controllers: readonly Controller[] }
  | { readonly version: 1; readonly bases: Readonly<Partial<Record<Controller, string>>> }
  | { readonly version: 0; readonly reason: string };

interface Mount { readonly root: string; readonly point: string; readonly type: string; readonly options: string[] }

function mounts(): Mount[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').flatMap((line) => {
    const [pre, post] = line.split(' - ');
    const f = pre?.split(' ') ?? [];
    const g = post?.split(' ') ?? [];
    if (f.length < 5 || g.length < 3) return [];
    return [{ root: f[3] ?? '/', point: f[4] ?? '', type: g[0] ?? '', options: (g[2] ?? '').split(',') }];
  });
}

/** The host path of cgroup `path` under a mount whose root is `m.root`, or null when it lies outside. */
function under(m: Mount, path: string): string | null {
  if (m.root === '/') return join(m.point, path);
  if (path === m.root || path.startsWith(`${m.root}/`)) return join(m.point, path.slice(m.root.length));
  return null;
}

/** Whether job cgroups can be made in `dir`: a probe folder is made and removed. */
function writable(dir: string): boolean {
  const probe = join(dir, `seam-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function probeV2(own: string, all: Mount[]): CgroupSupport | null {
  const m = all.find((x) => x.type === 'cgroup2');
  const base = m ? under(m, own) : null;
  if (!base) return null;
  const available = readFileSync(join(base, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  const controllers = CONTROLLERS.filter((c) => available.includes(c));
  if (!controllers.includes('memory') || !controllers.includes('pids') || !writable(base)) return null;
  try {
    // No internal processes: whatever runs in our cgroup (this agent, a server that spawned it)
    // moves to a leaf, so the controllers can be enabled for the job cgroups beside it.
    const leaf = join(base, 'seam-agent');
    mkdirSync(leaf, { recursive: true });
    for (const pid of readFileSync(join(base, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      writeFileSync(join(leaf, 'cgroup.procs'), pid);
    }
    writeFileSync(join(base, 'cgroup.subtree_control'), controllers.map((c) => `+${c}`).join(' '));
  } catch {
    return null;
  }
  return { version: 2, base, controllers };
}

function probeV1(lines: string[][], all: Mount[]): CgroupSupport | null {
  const bases: Partial<Record<Controller, string>> = {};
  for (const c of CONTROLLERS) {
    const own = lines.find((l) => (l[1] ?? '').split(',').includes(c))?.[2];
    const m = all.find((x) => x.type === 'cgroup' && x.options.includes(c));
    const dir = own !== undefined && m ? under(m, own) : null;
    if (dir && writable(dir)) bases[c] = dir;
  }
  return bases.memory || bases.pids ? { version: 1, bases } : null;
}

/** Finds where this agent may make job cgroups (see {@link CgroupSupport}). Linux only. */
export function probeCgroups(): CgroupSupport {
  let self: string;
  let all: Mount[];
  try {
    self = readFileSync('/proc/self/cgroup', 'utf8');
    all = mounts();
  } catch {
    return { version: 0, reason: 'no /proc/self/cgroup (not Linux)' };
  }
  const lines = self.split('\n').filter(Boolean).map((l) => {
    const i = l.indexOf(':');
    const j = l.indexOf(':', i + 1);
    return [l.slice(0, i), l.slice(i + 1, j), l.slice(j + 1)];
  });
  const unified = lines.find((l) => l[0] === '0' && l[1] === '');
  const v2 = unified ? probeV2(unified[2] ?? '/', all) : null;
  if (v2) return v2;
  const v1 = probeV1(lines, all);
  if (v1) return v1;
  return { version: 0, reason: 'no writable cgroup: neither a delegated cgroup v2 with memory and pids nor writable v1 memory/pids hierarchies' };
}

/** The controllers a job cgroup gets on this host, e.g. `cgroup v1 (memory, pids, cpu)`, or null. */
export function cgroupLayer(s: CgroupSupport): string | null {
  if (s.version === 0) return null;
  const list = s.version === 2 ? s.controllers : CONTROLLERS.filter((c) => s.bases[c]);
  return `cgroup v${s.version} (${list.join(', ')})`;
}

/** One job's cgroup: the files its first process joins, and cleanup. */
export interface JobCgroup {
  /** `cgroup.procs` files to write the job's first pid into (one per hierarchy) before it runs anything. */
  readonly procsFiles: readonly string[];
  /** Whether the kernel's OOM killer killed something in it. */
  oomKilled(): boolean;
  /** SIGKILLs every process in it. */
  kill(): void;
  /** Kills what is left, waits until it is empty, and removes it. */
  close(): Promise<void>;
}

const PERIOD_US = 100_000;

/**
 * The job cgroup's CPU weight (v2 `cpu.weight`, default 100; v1 `cpu.shares` scaled from 1024): a
 * tenth of the default, so that under contention the server and its members come first, while an
 * idle host gives the capture every core it can use.
 */
export const JOB_CPU_WEIGHT = 10;

function write(dir: string, file: string, value: string | number, optional = false): void {
  try {
    writeFileSync(join(dir, file), String(value));
  } catch (e) {
    if (!optional) throw new Error(`could not set ${file} of ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

function pidsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function oomCount(text: string): number {
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Makes the cgroup(s) of one job with `limits` (named after this agent's pid, for {@link sweepStaleCgroups}). */
export function createJobCgroup(s: CgroupSupport, limits: CgroupLimits): JobCgroup | null {
  if (s.version === 0) return null;
  const name = `seam-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const dirs: Partial<Record<Controller, string>> = {};
  if (s.version === 2) {
    const dir = join(s.base, name);
    mkdirSync(dir);
    for (const c of s.controllers) dirs[c] = dir;
  } else {
    for (const c of CONTROLLERS) {
      const base = s.bases[c];
      if (!base) continue;
      dirs[c] = join(base, name);
      mkdirSync(dirs[c]);
    }
  }
  const unique = [...new Set(Object.values(dirs))];
  const anyDir = dirs.pids ?? unique[0] ?? '';
  if (dirs.memory && limits.memoryBytes > 0) {
    if (s.version === 2) {
      write(dirs.memory, 'memory.max', limits.memoryBytes);
      write(dirs.memory, 'memory.swap.max', 0, true);
    } else {
      write(dirs.memory, 'memory.limit_in_bytes', limits.memoryBytes);
      write(dirs.memory, 'memory.memsw.limit_in_bytes', limits.memoryBytes, true);
    }
  }
  if (dirs.pids && limits.pids > 0) write(dirs.pids, 'pids.max', limits.pids);
  if (dirs.cpu) {
    write(dirs.cpu, s.version === 2 ? 'cpu.weight' : 'cpu.shares', s.version === 2 ? JOB_CPU_WEIGHT : Math.round((JOB_CPU_WEIGHT * 1024) / 100), true);
    if (limits.cpus > 0) {
      const quota = Math.max(1000, Math.round(limits.cpus * PERIOD_US));
      if (s.version === 2) write(dirs.cpu, 'cpu.max', `${quota} ${PERIOD_US}`);
      else {
        write(dirs.cpu, 'cpu.cfs_period_us', PERIOD_US);
        write(dirs.cpu, 'cpu.cfs_quota_us', quota);
      }
    }
  }
  const kill = () => {
    if (s.version === 2 && existsSync(join(anyDir, 'cgroup.kill'))) {
      write(anyDir, 'cgroup.kill', 1, true);
      return;
    }
    for (const pid of pidsIn(anyDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  return {
    procsFiles: unique.map((d) => join(d, 'cgroup.procs')),
    oomKilled: () => {
      if (!dirs.memory) return false;
      try {
        return oomCount(readFileSync(join(dirs.memory, s.version === 2 ? 'memory.events' : 'memory.oom_control'), 'utf8')) > 0;
      } catch {
        return false;
      }
    },
    kill,
    close: async () => {
      for (let i = 0; i < 250 && unique.some((d) => pidsIn(d).length > 0); i++) {
        kill();
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const d of unique) removeDir(d);
    },
  };
}

function removeDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`could not remove the job cgroup ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

/** Kills and removes job cgroups left by agents that died (SIGKILL, power loss); returns how many. */
export function sweepStaleCgroups(s: CgroupSupport): number {
  const bases = s.version === 2 ? [s.base] : s.version === 1 ? [...new Set(Object.values(s.bases))] : [];
  let removed = 0;
  for (const base of bases) {
    for (const name of readdirSync(base)) {
      const owner = Number(/^seam-(\d+)-/.exec(name)?.[1]);
      if (!owner || owner === process.pid || alive(owner)) continue;
      const dir = join(base, name);
      for (const pid of pidsIn(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      try {
        rmdirSync(dir);
        removed++;
      } catch {
        // Still emptying; the next agent start retries.
      }
    }
  }
  return removed;
}
