import { spawn, spawnSync } from 'node:child_process';

/** How the host can isolate a child: which wrappers exist and work here. Probed once per agent. */
export interface Isolation {
  /** Argv prefix that runs the child without network (`unshare -n` as root, `unshare -rn` via a user namespace), or null. */
  readonly noNetwork: readonly string[] | null;
  /** Whether `prlimit` exists to set the hard memory and file-size limits from outside the child. */
  readonly prlimit: boolean;
}

function works(argv: readonly string[]): boolean {
  const [cmd, ...rest] = argv;
  if (!cmd) return false;
  const r = spawnSync(cmd, [...rest, 'true'], { stdio: 'ignore', timeout: 5000 });
  return r.status === 0;
}

/** Finds out what this host enforces: a network namespace and prlimit, where available (Linux). */
export function probeIsolation(): Isolation {
  const noNetwork = [['unshare', '-n'], ['unshare', '-rn']].find(works) ?? null;
  return { noNetwork, prlimit: works(['prlimit', '--nofile=256']) };
}

/** Limits of one sandboxed run. */
export interface SandboxLimits {
  /** Wall-clock limit; the whole process group is killed past it. */
  readonly timeoutMs: number;
  /** Address-space limit in bytes (RLIMIT_AS), or 0 for none. */
  readonly memoryBytes: number;
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

/**
 * Runs `argv` in its own process group, in `cwd`, with exactly `env`, under the limits: no network
 * and prlimit where `isolation` has them, a wall-clock timeout and an output cap that kill the whole
 * group, and only the tails of stdout and stderr kept.
 */
export function runSandboxed(argv: readonly string[], cwd: string, env: Record<string, string>, limits: SandboxLimits, isolation: Isolation): SandboxRun {
  const prefix: string[] = [];
  if (isolation.noNetwork) prefix.push(...isolation.noNetwork);
  if (isolation.prlimit && (limits.memoryBytes > 0 || limits.fileBytes > 0)) {
    prefix.push('prlimit');
    if (limits.memoryBytes > 0) prefix.push(`--as=${limits.memoryBytes}`);
    if (limits.fileBytes > 0) prefix.push(`--fsize=${limits.fileBytes}`);
    prefix.push('--');
  }
  const full = [...prefix, ...argv];
  const started = Date.now();
  const child = spawn(full[0] ?? '', full.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new Tail(limits.tailBytes);
  const err = new Tail(limits.tailBytes);
  let outputBytes = 0;
  let timedOut = false;
  let outputExceeded = false;
  let cancelled = false;
  let exited = false;

  const killGroup = () => {
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
    killGroup();
  }, limits.timeoutMs);
  const onData = (tail: Tail) => (b: Buffer) => {
    if (outputExceeded) return;
    outputBytes += b.length;
    tail.push(b);
    if (outputBytes > limits.maxOutputBytes) {
      outputExceeded = true;
      killGroup();
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
      resolve({
        code, signal, timedOut, outputExceeded, cancelled, outputBytes,
        stdoutTail: out.text(), stderrTail: err.text(), wallMs: Date.now() - started,
      });
    };
    child.on('error', (e) => {
      err.push(Buffer.from(`could not start ${full[0]}: ${e.message}\n`));
      finish(null, null);
    });
    // The streams' last bytes arrive by 'close'; a grandchild holding the pipes open is killed
    // with the group, and half a second later the run ends regardless.
    child.on('exit', (code, signal) => {
      killGroup();
      child.on('close', () => finish(code, signal));
      setTimeout(() => finish(code, signal), 500).unref();
    });
  });
  return {
    done,
    pid: child.pid,
    cancel: () => {
      cancelled = true;
      killGroup();
    },
  };
}
