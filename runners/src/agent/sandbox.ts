import { spawn } from 'node:child_process';
import { bwrapArgv, SANDBOX_SCRATCH } from './bwrap';
import { createJobCgroup, type CgroupLimits, type JobCgroup } from './cgroups';
import type { Isolation } from './isolation';
import { watchQuota } from './quota';

/** Limits of one sandboxed run. */
export interface SandboxLimits {
  /** Wall-clock limit; the whole process group is killed past it. */
  readonly timeoutMs: number;
  /** Address-space limit in bytes (RLIMIT_AS), or 0 for none. */
  readonly memoryBytes: number;
  /** Memory, process and CPU bounds of the job's cgroup, where the host has one for us. */
  readonly cgroup: CgroupLimits;
  /** Bytes the scratch folder may hold, watched unless a sized tmpfs holds it; 0 for none. */
  readonly scratchBytes: number;
  /** Largest file the child may write (RLIMIT_FSIZE), or 0 for none. */
  readonly fileBytes: number;
  /** Total stdout+stderr bytes read before the child is killed. */
  readonly maxOutputBytes: number;
  /** Bytes of each stream's tail kept for the report. */
  readonly tailBytes: number;
}

/** How a sandboxed run ended. */
export interface SandboxOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly outputExceeded: boolean;
  readonly cancelled: boolean;
  /** The kernel's OOM killer struck inside the job's cgroup. */
  readonly oomKilled: boolean;
  /** The scratch folder grew past its quota and the job was stopped. */
  readonly quotaExceeded: boolean;
  readonly outputBytes: number;
  readonly stdoutTail: string;
  readonly stderrTail: string;
  readonly wallMs: number;
}

/** A running sandboxed child: its outcome, and a way to stop it early. */
export interface SandboxRun {
  readonly done: Promise<SandboxOutcome>;
  /** The child's pid, which is also its process group id; undefined if it could not start. */
  readonly pid: number | undefined;
  cancel(): void;
}

class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.cap && this.chunks.length > 1) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.cap)).toString('utf8');
  }
}

/** One job for {@link runSandboxed}: what to run, where, and what it may read. */
export interface SandboxJob {
  /** The program and its arguments, with paths as the program sees them (see {@link pathInside}). */
  readonly argv: readonly string[];
  /** The job's scratch folder on the host: its working directory, and its only writable place. */
  readonly scratch: string;
  /** Host folders the program needs read-only (interpreter, virtualenv, harness). */
  readonly readOnly: readonly string[];
  /** Exactly the environment the program gets. */
  readonly env: Record<string, string>;
  /** Whether a sized tmpfs holds the scratch folder (see `applyQuota`); if not, its size is watched. */
  readonly quotaMounted: boolean;
}

/** Where the host's scratch folder `scratch` appears to the program under `isolation`. */
export function pathInside(isolation: Isolation, scratch: string, hostPath: string): string {
  return isolation.bwrap && hostPath.startsWith(scratch) ? SANDBOX_SCRATCH + hostPath.slice(scratch.length) : hostPath;
}

/**
 * Joins each cgroup (`cgroup.procs` files before `--`) with its own pid, then execs the rest, so
 * that the job is inside its cgroup before it runs anything.
 */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/**
 * Runs a job in bubblewrap where `isolation` has it (see `bwrapArgv`: own mount, PID, IPC, UTS
 * and network namespaces, a read-only file system but the scratch folder, an unprivileged user),
 * in its own cgroup where the host offers one, with prlimit's rlimits, in its own process group;
 * a wall-clock timeout, an output cap and the scratch quota kill everything it started, and only
 * the tails of stdout and stderr are kept. Without bwrap the program runs unconfined but for the
 * rlimits, cgroup and kills. `done` resolves once every process of the job is gone.
 */
export function runSandboxed(job: SandboxJob, limits: SandboxLimits, isolation: Isolation): SandboxRun {
  const cgroup: JobCgroup | null = createJobCgroup(isolation.cgroups, limits.cgroup);
  const prefix: string[] = [];
  if (cgroup) prefix.push('/bin/sh', '-c', JOIN_CGROUP, 'seam-cgroup-join', ...cgroup.procsFiles, '--');
  const rlimits: string[] = [];
  if (limits.memoryBytes > 0) rlimits.push(`--as=${limits.memoryBytes}`);
  if (limits.fileBytes > 0) rlimits.push(`--fsize=${limits.fileBytes}`);
  // Without a pids cgroup, a dedicated sandbox user's process count is the next best bound.
  const pidsCgroup = isolation.cgroups.version === 2 || (isolation.cgroups.version === 1 && isolation.cgroups.bases.pids);
  if (!pidsCgroup && isolation.user && limits.cgroup.pids > 0) rlimits.push(`--nproc=${limits.cgroup.pids}`);
  if (isolation.prlimit && rlimits.length > 0) prefix.push('prlimit', ...rlimits, '--');
  if (isolation.bwrap) {
    prefix.push(...bwrapArgv({
      bwrap: isolation.bwrap, readOnly: job.readOnly, scratch: job.scratch, devices: isolation.devices,
      network: isolation.network, user: isolation.user,
    }));
  }
  const full = [...prefix, ...job.argv];
  const started = Date.now();
  const child = spawn(full[0] ?? '', full.slice(1), { cwd: job.scratch, env: job.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new Tail(limits.tailBytes);
  const err = new Tail(limits.tailBytes);
  let outputBytes = 0;
  let timedOut = false;
  let outputExceeded = false;
  let quotaExceeded = false;
  let cancelled = false;
  let exited = false;

  const killAll = () => {
    cgroup?.kill();
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch (e) {
      // ESRCH: the group is already gone.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killAll();
  }, limits.timeoutMs);
  const stopWatch = !job.quotaMounted && limits.scratchBytes > 0
    ? watchQuota(job.scratch, limits.scratchBytes, () => {
      quotaExceeded = true;
      killAll();
    })
    : () => {};
  const onData = (tail: Tail) => (b: Buffer) => {
    if (outputExceeded) return;
    outputBytes += b.length;
    tail.push(b);
    if (outputBytes > limits.maxOutputBytes) {
      outputExceeded = true;
      killAll();
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
  };
  child.stdout?.on('data', onData(out));
  child.stderr?.on('data', onData(err));

  const done = new Promise<SandboxOutcome>((resolve) => {
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      exited = true;
      clearTimeout(timer);
      stopWatch();
      const oomKilled = cgroup?.oomKilled() ?? false;
      // Whatever the job left behind is killed and its cgroup removed before the run is reported.
      void (cgroup?.close() ?? Promise.resolve()).catch((e: unknown) => {
        err.push(Buffer.from(`${(e as Error).message}\n`));
      }).then(() => resolve({
        code, signal, timedOut, outputExceeded, cancelled, oomKilled, quotaExceeded, outputBytes,
        stdoutTail: out.text(), stderrTail: err.text(), wallMs: Date.now() - started,
      }));
    };
    child.on('error', (e) => {
      err.push(Buffer.from(`could not start ${full[0]}: ${e.message}\n`));
      finish(null, null);
    });
    // The streams' last bytes arrive by 'close'; a grandchild holding the pipes open is killed
    // with the group, and half a second later the run ends regardless.
    child.on('exit', (code, signal) => {
      killAll();
      child.on('close', () => finish(code, signal));
      setTimeout(() => finish(code, signal), 500).unref();
    });
  });
  return {
    done,
    pid: child.pid,
    cancel: () => {
      cancelled = true;
      killAll();
    },
  };
}
