import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

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
}

/** A local runner child process. */
export interface LocalRunner {
  /** Stops the runner (SIGTERM; it kills a running capture) and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * The `npm start` runner: `node runners/bin/seam-runner.js --local --server URL --name local`, which
 * builds the JAX virtualenv on first use and then connects back to this server.
 */
export function spawnLocalRunner(o: LocalRunnerOptions): LocalRunner {
  const child = spawn(process.execPath, [o.script ?? RUNNER_SCRIPT, '--local', '--server', o.serverUrl, '--name', o.name ?? 'local'], {
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
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
