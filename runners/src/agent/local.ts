import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureVenv } from '../venv';
import { RUNNERS_DIR } from './config';

/** Options of {@link startLocalRunner}. */
export interface LocalRunnerOptions {
  /** The server this process just started, e.g. `http://127.0.0.1:8080`. */
  readonly serverUrl: string;
  /** A fresh runner token for it (the server creates it in its own store). */
  readonly token: string;
  /** How rooms list the runner; default `local`. */
  readonly name?: string;
  /** Progress lines: the virtualenv build (pip's output on first use) and the agent's own lines. */
  readonly onProgress?: (line: string) => void;
}

/** A local runner started by the server. */
export interface LocalRunner {
  /** Stops the agent (SIGTERM; it kills a running capture) and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * The `npm start` runner: creates the JAX virtualenv on first use (with progress), then runs
 * `seam-runner` against the local server as a child process. The token travels in the child's
 * environment, not its argv, so it never shows in a process list.
 */
export async function startLocalRunner(o: LocalRunnerOptions): Promise<LocalRunner> {
  const progress = o.onProgress ?? (() => undefined);
  const venv = await ensureVenv({ onProgress: progress });
  progress(`local runner: virtualenv ${venv.status}`);
  const child = spawn(process.execPath, [join(RUNNERS_DIR, 'bin', 'seam-runner.js'), '--server', o.serverUrl, '--name', o.name ?? 'local', '--python', venv.python], {
    env: { ...process.env, SEAM_RUNNER_TOKEN: o.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout }).on('line', progress);
  createInterface({ input: child.stderr }).on('line', progress);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
