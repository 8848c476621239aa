import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** A server process a test started: its output so far, and ways to end it. */
export interface Daemon {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (for error messages). */
  output(): string;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Whether the process has exited. */
  exited(): boolean;
}

/** What a daemon runs as: the unprivileged user, when the tests run as root and the daemon refuses root. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Spawns `command args` (as `runAs` through `setpriv`, which execs, so the pid is the daemon's own
 * and `kill -9` reaches it), collecting its output.
 */
export function spawnDaemon(command: string, args: readonly string[], opts: { runAs?: RunAs; env?: NodeJS.ProcessEnv } = {}): Daemon {
  const [cmd, argv] = opts.runAs
    ? ['setpriv', [`--reuid=${opts.runAs.uid}`, `--regid=${opts.runAs.gid}`, '--clear-groups', '--', command, ...args]]
    : [command, args];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => out,
    exited: hasExited,
    kill: async (signal) => {
      if (!hasExited()) child.kill(signal);
      await exit;
    },
  };
}

/** Resolves true once a TCP connection to `127.0.0.1:port` opens, false if it is refused. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Resolves once `ready()` is true, polling every 25 ms; rejects with the daemon's output when it
 * exits first, or after `timeoutMs` (a deadline for failure, not a timing assertion).
 */
export async function waitReady(daemon: Daemon, what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.exited()) throw new Error(`${what} exited before it was ready:\n${daemon.output()}`);
    if (await ready()) return;
    if (Date.now() > deadline) {
      await daemon.kill('SIGKILL');
      throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${daemon.output()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
