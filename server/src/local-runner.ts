import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { isLoopbackHost } from './auth/room-policy';

/**
 * The runner's entry script in this checkout. The server starts it as a child process and never
 * imports the runners workspace (server, web and runners share only `shared/`).
 */
export const RUNNER_SCRIPT = fileURLToPath(new URL('../../runners/bin/seam-runner.js', import.meta.url));

/** Options of {@link spawnLocalRunner}. */
export interface LocalRunnerOptions {
  /** The server this process just started, e.g. `http://127.0.0.1:8080`. */
  readonly serverUrl: string;
  /** A fresh runner token; it travels in the child's environment as `SEAM_RUNNER_TOKEN`, never in argv. */
  readonly token: string;
  /** The environment the child inherits (main.ts passes its own). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Each line the runner prints: the virtualenv build on first use, then the agent's own lines. */
  readonly onLine: (line: string) => void;
  /** Called once when the runner exits, with its exit code or signal. */
  readonly onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** How rooms list the runner; default `local`. */
  readonly name?: string;
  /** The script to run; default {@link RUNNER_SCRIPT}. */
  readonly script?: string;
  /** Start it with `--require-sandbox`: it refuses to run captures outside bubblewrap. */
  readonly requireSandbox?: boolean;
}

/** A local runner child process. */
export interface LocalRunner {
  /** The child's process id while it runs (the supervisor's current child), else `undefined`. */
  readonly pid: number | undefined;
  /** Stops the runner (SIGTERM; it kills a running capture) and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * The `npm start` runner: `node runners/bin/seam-runner.js --local --server URL --name local`, which
 * builds the JAX virtualenv on first use and then connects back to this server.
 */
export function spawnLocalRunner(o: LocalRunnerOptions): LocalRunner {
  const args = [o.script ?? RUNNER_SCRIPT, '--local', '--server', o.serverUrl, '--name', o.name ?? 'local', ...(o.requireSandbox ? ['--require-sandbox'] : [])];
  const child = spawn(process.execPath, args, {
    env: { ...o.env, SEAM_RUNNER_TOKEN: o.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout }).on('line', o.onLine);
  createInterface({ input: child.stderr }).on('line', o.onLine);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      o.onExit?.(code, signal);
      resolve();
    });
  });
  return {
    get pid() {
      return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The server would run users' programs outside a sandbox on an address other machines can reach. */
export class UnsandboxedRunnerError extends Error {
  override name = 'UnsandboxedRunnerError';
}

/** What `seam-runner --check-sandbox` found on this host. */
export interface SandboxCheck {
  readonly sandboxed: boolean;
  /** What is enforced and what is not, in words. */
  readonly text: string;
}

/** Runs `seam-runner --check-sandbox` with `env` (`SEAM_BWRAP`, `SEAM_SANDBOX_USER` apply) and returns what it found. */
export function checkLocalSandbox(env: Readonly<Record<string, string | undefined>>, script = RUNNER_SCRIPT): Promise<SandboxCheck> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, '--check-sandbox', '--name', 'local'], { env, timeout: 120_000 }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        const report = JSON.parse(line) as Partial<SandboxCheck>;
        resolve({ sandboxed: report.sandboxed === true, text: String(report.text ?? '') });
      } catch {
        reject(new Error(`seam-runner --check-sandbox failed: ${stderr.trim() || err?.message || line}`));
      }
    });
  });
}

/**
 * How the local runner may start on `host` given `check`: sandboxed, it is required to stay so
 * (`--require-sandbox`); unsandboxed on loopback, it starts with the returned warning; unsandboxed on
 * any other address, this throws {@link UnsandboxedRunnerError}.
 */
export function localRunnerSandbox(check: SandboxCheck, host: string): { readonly requireSandbox: boolean; readonly warning: string | null } {
  if (check.sandboxed) return { requireSandbox: true, warning: null };
  if (!isLoopbackHost(host)) {
    throw new UnsandboxedRunnerError(`refusing to start on HOST=${host}: the local runner would run users' programs without a sandbox (${check.text}). `
      + 'Install bubblewrap (apt-get install bubblewrap), or set SEAM_RUNNER=off and use remote runners, or listen on 127.0.0.1.');
  }
  return { requireSandbox: false, warning: `captures on the local runner are NOT sandboxed: ${check.text}. This is tolerated on loopback only; install bubblewrap (apt-get install bubblewrap).` };
}

/** When {@link superviseLocalRunner} restarts the runner, and when it gives up. */
export interface RestartPolicy {
  /** Delay before the first restart; it doubles with each exit that came soon after a start. */
  readonly firstDelayMs: number;
  /** The longest delay between restarts. */
  readonly maxDelayMs: number;
  /** A runner up this long counts as healthy: its exit restarts it after `firstDelayMs` again. */
  readonly stableMs: number;
  /** After this many exits in a row, each sooner than `stableMs` after its start, no more restarts. */
  readonly maxQuickExits: number;
}

/** 1 s doubling to 60 s; healthy after a minute up; gives up after 8 quick exits in a row (about 2 minutes of retries). */
export const DEFAULT_RESTART: RestartPolicy = { firstDelayMs: 1_000, maxDelayMs: 60_000, stableMs: 60_000, maxQuickExits: 8 };

/** Options of {@link superviseLocalRunner}: those of {@link spawnLocalRunner}, a logger and the policy. */
export interface SupervisedRunnerOptions extends Omit<LocalRunnerOptions, 'onExit'> {
  /** Where starts, exits, restarts and giving up are logged (never the token). */
  readonly log: Logger;
  /** Default {@link DEFAULT_RESTART}. */
  readonly restart?: Partial<RestartPolicy>;
}

/**
 * Starts the local runner and starts it again whenever it exits (a crash, an OOM kill, someone's
 * `kill`), after a delay that doubles with each exit that came soon after its start and resets once
 * a runner stayed up `stableMs`. After `maxQuickExits` such exits in a row (a broken virtualenv, a
 * revoked token) it logs one error and stops trying. `stop()` ends the supervision: no restart
 * follows, and it resolves once the current child has exited.
 */
export function superviseLocalRunner(o: SupervisedRunnerOptions): LocalRunner {
  const policy = { ...DEFAULT_RESTART, ...o.restart };
  const name = o.name ?? 'local';
  let current: LocalRunner | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let quickExits = 0;
  let stopping = false;

  const exited = (startedAt: number, code: number | null, signal: NodeJS.Signals | null) => {
    if (stopping) return;
    const upMs = Date.now() - startedAt;
    quickExits = upMs >= policy.stableMs ? 0 : quickExits + 1;
    if (quickExits >= policy.maxQuickExits) {
      o.log.error({ runner: name, code, signal, upMs, quickExits },
        `the local runner exited ${quickExits} times in a row within ${policy.stableMs / 1000} s of starting; not restarting it (its output above says why; fix that and restart the server)`);
      return;
    }
    const delayMs = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, quickExits - 1));
    o.log.warn({ runner: name, code, signal, upMs, restartInMs: delayMs }, 'the local runner exited; restarting it');
    timer = setTimeout(start, delayMs);
  };

  function start(): void {
    timer = undefined;
    const startedAt = Date.now();
    current = spawnLocalRunner({ ...o, onExit: (code, signal) => exited(startedAt, code, signal) });
    o.log.info({ runner: name, pid: current.pid }, 'started the local runner');
  }

  start();
  return {
    get pid() {
      return current?.pid;
    },
    stop: async () => {
      stopping = true;
      if (timer) clearTimeout(timer);
      await current?.stop();
    },
  };
}
