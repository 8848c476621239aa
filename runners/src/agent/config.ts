import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonRoots } from './bwrap';
import { DEFAULT_PASS_ENV, type ExecuteConfig } from './execute';
import type { Isolation } from './isolation';
import { DEFAULT_SANDBOX_USER } from './sandbox-user';

/** The `runners/` folder of this checkout. */
export const RUNNERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The interpreter a runner uses unless `--python` names another: the project's virtualenv. */
export const DEFAULT_PYTHON = join(RUNNERS_DIR, '.venv', 'bin', 'python');

/** The command-line options of `seam-runner`. */
export interface CliOptions {
  readonly server: string;
  readonly token: string;
  readonly name: string;
  readonly python: string;
  readonly memoryBytes: number;
  readonly maxOutputBytes: number;
  readonly maxArtifactBytes: number;
  readonly network: boolean;
  /** `--require-sandbox` (or `SEAM_REQUIRE_SANDBOX=1`): refuse to start where bubblewrap does not work. */
  readonly requireSandbox: boolean;
  /** `--check-sandbox`: print what isolation this host gives captures and exit (0: sandboxed, 1: not). */
  readonly checkSandbox: boolean;
  /** The host user captures run as when the agent is root (`--sandbox-user`, `SEAM_SANDBOX_USER`). */
  readonly sandboxUser: string;
  /** Resident memory of one capture's cgroup, bytes (`--job-memory`); 0 for none. */
  readonly jobMemoryBytes: number;
  /** Processes and threads of one capture (`--job-pids`); 0 for none. */
  readonly jobPids: number;
  /** CPU cores one capture may use (`--job-cpus`, fractions allowed); 0 for no quota. */
  readonly jobCpus: number;
  /** Bytes one capture's scratch folder may hold (`--scratch-quota`). */
  readonly scratchBytes: number;
  /** The bubblewrap binary (`SEAM_BWRAP`); default `/usr/bin/bwrap`, else `bwrap` on PATH. */
  readonly bwrap: string | undefined;
  /**
   * `--local`: the runner that `npm start` spawns. It builds the project's virtualenv first (unless
   * `--python` names an interpreter) and takes the token from `SEAM_RUNNER_TOKEN` only.
   */
  readonly local: boolean;
}

export const USAGE = `usage: seam-runner --server URL --token T [--name N] [--python PATH]
       [--memory-limit BYTES|0] [--max-output BYTES] [--max-artifact BYTES] [--allow-network] [--local]
       [--require-sandbox] [--sandbox-user NAME] [--job-memory BYTES|0] [--job-pids N|0] [--job-cpus N|0]
       [--scratch-quota BYTES]
       seam-runner --check-sandbox [--sandbox-user NAME] [--allow-network]
  --server        the Seam server, e.g. https://seam.example.org
  --token         a runner token (or SEAM_RUNNER_TOKEN); never logged
  --name          how the room lists this runner (default: the host name)
  --python        Python with JAX (default: runners/.venv/bin/python)
  --memory-limit  address-space limit per capture (default 16 GiB; 0 for none, e.g. on GPUs)
  --max-output    stdout+stderr bytes before a capture is stopped (default 16 MiB)
  --max-artifact  largest dump posted (default 64 MiB)
  --allow-network run captures with the host's network (by default they have none)
  --require-sandbox refuse to start unless captures run in bubblewrap (or SEAM_REQUIRE_SANDBOX=1)
  --sandbox-user  the host user captures run as when the agent is root, created when missing
                  (default seam-sandbox, or SEAM_SANDBOX_USER; nobody if it cannot be created)
  --job-memory    memory of one capture's cgroup (default 8 GiB; 0 for none; or SEAM_JOB_MEMORY)
  --job-pids      processes and threads of one capture (default 1024; 0 for none; or SEAM_JOB_PIDS)
  --job-cpus      CPU cores one capture may use (default 0: no quota, a tenth of the CPU weight; or SEAM_JOB_CPUS)
  --scratch-quota bytes one capture's scratch folder may hold (default 1 GiB; or SEAM_SCRATCH_QUOTA)
  --check-sandbox print the isolation captures get here and exit: 0 sandboxed, 1 not
  SEAM_BWRAP      the bubblewrap binary (default /usr/bin/bwrap, else bwrap on PATH)
  --local         the runner npm start spawns: builds runners/.venv first (with progress), token from
                  SEAM_RUNNER_TOKEN only`;

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Options of the sandbox that an environment variable sets when the flag is absent. */
const SANDBOX_ENV = [
  ['--sandbox-user', 'SEAM_SANDBOX_USER'], ['--job-memory', 'SEAM_JOB_MEMORY'], ['--job-pids', 'SEAM_JOB_PIDS'],
  ['--job-cpus', 'SEAM_JOB_CPUS'], ['--scratch-quota', 'SEAM_SCRATCH_QUOTA'],
] as const;

const FLAGS = new Set(['--allow-network', '--help', '--local', '--require-sandbox', '--check-sandbox']);

function bytes(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a byte count, got "${v ?? ''}"`);
  return n;
}

/** Reads `seam-runner`'s arguments; throws with a message naming the bad flag. */
export function parseCli(argv: readonly string[], env: Record<string, string | undefined>): CliOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (FLAGS.has(a)) flags.add(a);
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) values.set(a.slice(0, eq), a.slice(eq + 1));
      else values.set(a, argv[++i] ?? '');
    } else throw new Error(`unexpected argument "${a}"`);
  }
  if (flags.has('--help')) throw new Error(USAGE);
  const known = new Set(['--server', '--token', '--name', '--python', '--memory-limit', '--max-output', '--max-artifact',
    '--sandbox-user', '--job-memory', '--job-pids', '--job-cpus', '--scratch-quota']);
  for (const k of values.keys()) if (!known.has(k)) throw new Error(`unknown option ${k}\n${USAGE}`);
  const local = flags.has('--local');
  if (local && values.has('--token')) throw new Error('--local takes the token from SEAM_RUNNER_TOKEN, not from the command line');
  const checkSandbox = flags.has('--check-sandbox');
  const server = values.get('--server') ?? env.SEAM_SERVER ?? '';
  const token = values.get('--token') ?? env.SEAM_RUNNER_TOKEN ?? '';
  if (!checkSandbox) {
    if (!server || !token) throw new Error(`--server and --token are required\n${USAGE}`);
    new URL(server);
  }
  // The sandbox's limits also come from the environment, so that `npm start` can set its local runner's.
  for (const [flag, key] of SANDBOX_ENV) if (!values.has(flag) && env[key]) values.set(flag, env[key] ?? '');
  const cpus = Number(values.get('--job-cpus') ?? 0);
  if (!Number.isFinite(cpus) || cpus < 0) throw new Error(`--job-cpus must be a number of cores ≥ 0, got "${values.get('--job-cpus') ?? ''}"`);
  const sized = (flag: string, fallback: number) => (values.has(flag) ? bytes(flag, values.get(flag)) : fallback);
  return {
    server, token,
    name: values.get('--name') || hostname(),
    python: values.get('--python') || DEFAULT_PYTHON,
    memoryBytes: values.has('--memory-limit') ? bytes('--memory-limit', values.get('--memory-limit')) : 16 * GiB,
    maxOutputBytes: values.has('--max-output') ? bytes('--max-output', values.get('--max-output')) : 16 * MiB,
    maxArtifactBytes: values.has('--max-artifact') ? bytes('--max-artifact', values.get('--max-artifact')) : 64 * MiB,
    network: flags.has('--allow-network'),
    requireSandbox: flags.has('--require-sandbox') || env.SEAM_REQUIRE_SANDBOX === '1',
    checkSandbox,
    sandboxUser: values.get('--sandbox-user') || DEFAULT_SANDBOX_USER,
    jobMemoryBytes: sized('--job-memory', 8 * GiB),
    jobPids: sized('--job-pids', 1024),
    jobCpus: cpus,
    scratchBytes: sized('--scratch-quota', GiB),
    bwrap: env.SEAM_BWRAP || undefined,
    local,
  };
}

/** The execute config for these options on this host. */
export function executeConfig(o: CliOptions, isolation: Isolation): ExecuteConfig {
  const harnessDir = join(RUNNERS_DIR, 'python');
  if (!existsSync(join(harnessDir, 'seam_capture'))) throw new Error(`the capture harness is missing from ${harnessDir}`);
  return {
    python: o.python, harnessDir, readOnly: [...pythonRoots(o.python), harnessDir], memoryBytes: o.memoryBytes,
    cgroup: { memoryBytes: o.jobMemoryBytes, pids: o.jobPids, cpus: o.jobCpus }, scratchBytes: o.scratchBytes,
    maxOutputBytes: o.maxOutputBytes, maxArtifactBytes: o.maxArtifactBytes, passEnv: DEFAULT_PASS_ENV, isolation,
  };
}
