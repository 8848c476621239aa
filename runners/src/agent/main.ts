import { Agent } from './agent';
import { executeConfig, parseCli, type CliOptions } from './config';
import { venvIsCurrent, VenvError } from '../venv';
import { DEFAULT_PYTHON } from './config';
import { pinnedCapabilities, prepareLocal } from './local';
import { Preparation } from './preparation';
import { sweepStaleCgroups } from './cgroups';
import { describeIsolation, probeIsolation } from './isolation';
import { probeCapabilities } from './probe';
import { sweepStaleScratch } from './scratch';

/** Exit code of an agent that refuses to start because `--require-sandbox` cannot be met. */
export const EXIT_UNSANDBOXED = 3;

/**
 * `seam-runner --server URL --token T [--name N] [--local]`: with `--local`, builds the project's
 * virtualenv (progress on stdout). When it must be built, the runner connects at once with the
 * capabilities the requirements pin, and a capture that arrives during the build waits for it
 * with the build's progress as its phase, so the room sees it; a failed build fails that capture
 * and stops the runner (exit 1). Otherwise it probes the host (JAX devices and versions, what
 * isolation it allows; with `--require-sandbox`, refuses to go on without bubblewrap), then runs
 * the agent until SIGINT/SIGTERM or a revoked token. `--check-sandbox` prints the isolation as one
 * JSON line and exits. Returns the exit code.
 */
export async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCli(argv, env);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  const name = options.name;
  const log = (line: string) => console.log(`${name}: ${line}`);
  const probe = () => probeIsolation({ sandboxUser: options.sandboxUser, network: options.network, bwrap: options.bwrap, log });
  if (options.checkSandbox) {
    const report = describeIsolation(probe());
    console.log(JSON.stringify(report));
    return report.sandboxed ? 0 : 1;
  }
  let preparation: Preparation | undefined;
  if (options.local && options.python === DEFAULT_PYTHON && !venvIsCurrent()) {
    const local = options;
    preparation = new Preparation(async (onLine) => {
      await prepareLocal(local, (line) => {
        console.log(line);
        onLine(line.replace(/^\[venv\] /, ''));
      });
    }, 'building the JAX virtualenv');
    preparation.done.catch((e: unknown) => console.error(`${local.name}: ${(e as Error).message}`));
  } else {
    try {
      options = await prepareLocal(options, (line) => console.log(line));
    } catch (e) {
      if (!(e instanceof VenvError)) throw e;
      console.error(`${options.name}: ${e.message}`);
      return 1;
    }
  }
  const stale = sweepStaleScratch();
  if (stale.length > 0) console.log(`cleaned up ${stale.length} capture(s) left by an agent that died`);
  const isolation = probe();
  const report = describeIsolation(isolation);
  if (options.requireSandbox && !report.sandboxed) {
    console.error(`${options.name}: refusing to start: --require-sandbox is set, and ${isolation.bwrapProblem ?? 'bubblewrap is unavailable'}`);
    return EXIT_UNSANDBOXED;
  }
  const swept = sweepStaleCgroups(isolation.cgroups);
  if (swept > 0) log(`removed ${swept} job cgroup(s) left by an agent that died`);
  // While the virtualenv is being built its interpreter does not exist yet: the capture config
  // (which binds it into the sandbox) is made when the first capture needs it.
  const execute = preparation ? undefined : executeConfig(options, isolation);
  const passEnv: Record<string, string> = {};
  for (const k of execute?.passEnv ?? []) if (env[k] !== undefined) passEnv[k] = env[k] ?? '';
  const probed = execute ? await probeCapabilities(options.python, execute.harnessDir, passEnv) : pinnedCapabilities(env);
  const capabilities = { ...probed, isolation: { sandboxed: report.sandboxed, layers: report.layers } };
  console.log(`${options.name}: ${capabilities.platform} ${capabilities.deviceKind} ×${capabilities.deviceCount}, jax ${capabilities.jax}, python ${capabilities.python}`);
  log(`${report.sandboxed ? "" : "WARNING: "}isolation: ${report.text}`);
  const prepared = options;
  const agent = new Agent({
    server: options.server, token: options.token, name: options.name, capabilities,
    execute: execute ?? (() => executeConfig(prepared, isolation)), ...(preparation ? { preparation } : {}),
  });
  const stop = () => agent.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  agent.start();
  await agent.finished;
  return preparation && (await preparation.done.then(() => false, () => true)) ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2), process.env).then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(`seam-runner: ${(e as Error).message}`);
    process.exitCode = 1;
  });
}
