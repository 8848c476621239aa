import { Agent } from './agent';
import { executeConfig, parseCli } from './config';
import { VenvError } from '../venv';
import { prepareLocal } from './local';
import { probeCapabilities } from './probe';
import { probeIsolation } from './sandbox';
import { sweepStaleScratch } from './scratch';

/**
 * `seam-runner --server URL --token T [--name N] [--local]`: with `--local`, builds the project's
 * virtualenv first (progress on stdout); then probes the host (JAX devices and versions, what
 * isolation it allows), then runs the agent until SIGINT/SIGTERM or a revoked token. Returns the
 * exit code.
 */
export async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  let options;
  try {
    options = parseCli(argv, env);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  try {
    options = await prepareLocal(options, (line) => console.log(line));
  } catch (e) {
    if (!(e instanceof VenvError)) throw e;
    console.error(`${options.name}: ${e.message}`);
    return 1;
  }
  const stale = sweepStaleScratch();
  if (stale.length > 0) console.log(`cleaned up ${stale.length} capture(s) left by an agent that died`);
  const isolation = probeIsolation();
  const execute = executeConfig(options, isolation);
  const passEnv: Record<string, string> = {};
  for (const k of execute.passEnv) if (env[k] !== undefined) passEnv[k] = env[k] ?? '';
  const capabilities = await probeCapabilities(options.python, execute.harnessDir, passEnv);
  console.log(`${options.name}: ${capabilities.platform} ${capabilities.deviceKind} ×${capabilities.deviceCount}, jax ${capabilities.jax}, python ${capabilities.python}`);
  console.log(`${options.name}: network isolation ${execute.isolation.noNetwork ? execute.isolation.noNetwork.join(' ') : 'not available'}; `
    + `memory limit ${options.memoryBytes > 0 ? (isolation.prlimit ? 'prlimit' : 'RLIMIT_AS in the harness') : 'off'}`);
  const agent = new Agent({ server: options.server, token: options.token, name: options.name, capabilities, execute });
  const stop = () => agent.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  agent.start();
  await agent.finished;
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2), process.env).then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(`seam-runner: ${(e as Error).message}`);
    process.exitCode = 1;
  });
}
