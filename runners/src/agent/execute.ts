import { gunzipSync } from 'node:zlib';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MeasuredBandwidthSchema, type CaptureError, type CaptureKind, type CaptureProvenance, type CaptureRequest, type DocumentKind } from '@seam/shared/model';
import type { ResultArtifact, ResultBody } from '@seam/shared/protocol';
import type { CgroupLimits } from './cgroups';
import type { Isolation } from './isolation';
import { applyQuota } from './quota';
import { makeScratch, readScratchFile, recordGroup } from './scratch';
import { readableTrace } from './trace-text';
import { pathInside, runSandboxed, type SandboxLimits, type SandboxOutcome } from './sandbox';

/** Where the harness lives and what every capture on this runner is held to. */
export interface ExecuteConfig {
  /** The Python of the virtualenv with JAX. */
  readonly python: string;
  /** Folder holding the `seam_capture` package. */
  readonly harnessDir: string;
  /** Host folders the sandbox binds read-only: the interpreter's prefix, the virtualenv, the harness. */
  readonly readOnly: readonly string[];
  /** The job cgroup's memory, process and CPU bounds (see docs/runners.md). */
  readonly cgroup: CgroupLimits;
  /** Bytes one capture's scratch folder may hold; default 1 GiB. */
  readonly scratchBytes: number;
  /** Address-space limit per capture in bytes; 0 for none. Default 16 GiB (see docs/runners.md). */
  readonly memoryBytes: number;
  /** stdout+stderr bytes after which a capture is killed; default 16 MiB. */
  readonly maxOutputBytes: number;
  /** Largest artifact posted; bigger ones are left out with a note. Default 64 MiB. */
  readonly maxArtifactBytes: number;
  /** Environment variables passed through to the harness by name (platform selection, accelerators). */
  readonly passEnv: readonly string[];
  readonly isolation: Isolation;
}

/** Variables the harness gets from the agent's environment when set; nothing else reaches it. */
export const DEFAULT_PASS_ENV = [
  'LANG', 'LC_ALL', 'JAX_PLATFORMS', 'CUDA_VISIBLE_DEVICES', 'LD_LIBRARY_PATH', 'TPU_NAME', 'TPU_ACCELERATOR_TYPE',
  'TPU_WORKER_ID', 'TPU_WORKER_HOSTNAMES', 'TPU_SKIP_MDS_QUERY', 'TPU_VISIBLE_CHIPS', 'TPU_PROCESS_BOUNDS',
  'TPU_CHIPS_PER_PROCESS_BOUNDS', 'XLA_PYTHON_CLIENT_PREALLOCATE', 'XLA_PYTHON_CLIENT_MEM_FRACTION',
] as const;

/** A capture's outcome plus what the agent measured of it, for the status stream and the benchmark. */
export interface Execution {
  readonly body: ResultBody;
  readonly sandbox: SandboxOutcome;
  /** Harness timings (importSeconds, compileSeconds, …) when it got that far. */
  readonly timings: Record<string, number>;
}

/** Request kinds → harness artifact names. StableHLO is always taken with `debug_info=True`. */
const HARNESS_KINDS: Readonly<Record<CaptureKind, string>> = {
  jaxpr: 'jaxpr', stablehlo: 'stablehlo-debug', hlo: 'hlo', 'hlo-opt': 'hlo-opt', cost: 'cost', memory: 'memory', trace: 'trace',
};

/** Harness artifact → document kind and title suffix. */
const ARTIFACT_DOCS: Readonly<Record<string, { kind: DocumentKind; title: string }>> = {
  jaxpr: { kind: 'jaxpr', title: 'jaxpr' },
  'stablehlo-debug': { kind: 'stablehlo', title: 'StableHLO' },
  stablehlo: { kind: 'stablehlo', title: 'StableHLO' },
  hlo: { kind: 'hlo', title: 'HLO (before optimization)' },
  'hlo-opt': { kind: 'hlo-opt', title: 'HLO (optimized)' },
  cost: { kind: 'text', title: 'cost analysis' },
  memory: { kind: 'text', title: 'memory analysis' },
  trace: { kind: 'trace', title: 'profiler trace' },
  ops: { kind: 'text', title: 'per-op device time' },
};

interface ManifestRow { name: string; file: string }
interface HarnessResult { ok: true; artifacts: ManifestRow[]; provenance: Record<string, unknown>; timings?: Record<string, number> }
interface HarnessError { ok: false; stage: string; type: string; message: string; traceback: string }

/** A JSON file the harness wrote into `scratch`; null when it is missing, unreadable as JSON, or not a plain file there. */
async function readJson<T>(scratch: string, path: string): Promise<T | null> {
  const bytes = await readScratchFile(scratch, path, 16 * 1024 * 1024);
  if (!bytes || bytes === 'too-big') return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    return null;
  }
}

function provenanceOf(raw: Record<string, unknown> | undefined, runner: string): CaptureProvenance {
  const p = raw ?? {};
  const str = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  // A measurement out of bounds is left out, not passed on: the server would refuse the result.
  const bandwidth = MeasuredBandwidthSchema.safeParse(p.bandwidth);
  return {
    runner,
    ...(str('platform') ? { platform: str('platform') } : {}),
    ...(str('deviceKind') ? { deviceKind: str('deviceKind') } : {}),
    ...(typeof p.deviceCount === 'number' ? { deviceCount: p.deviceCount } : {}),
    ...(str('jax') ? { jax: str('jax') } : {}),
    ...(str('jaxlib') ? { jaxlib: str('jaxlib') } : {}),
    ...(str('python') ? { python: str('python') } : {}),
    ...(bandwidth.success ? { bandwidth: bandwidth.data } : {}),
  };
}

const MEMORY_SIGNS = /MemoryError|RESOURCE_EXHAUSTED|[Oo]ut of memory|Cannot allocate memory|std::bad_alloc/;

/** Turns a run that produced no result into the reason the room sees. */
function failureOf(s: SandboxOutcome, err: HarnessError | null, timeoutS: number, limits: ExecuteConfig): CaptureError {
  const tail = (s.stderrTail || s.stdoutTail).slice(-8000);
  if (s.timedOut) return { reason: 'timeout', message: `the capture ran past its ${timeoutS} s timeout and was stopped`, traceback: tail };
  if (s.oomKilled) {
    return { reason: 'memory-limit', message: `the capture was killed by the kernel at its memory limit (${limits.cgroup.memoryBytes} bytes)`, traceback: tail };
  }
  if (s.quotaExceeded || (!err && /No space left on device/.test(tail))) {
    return { reason: 'output-limit', message: `the program wrote more than its scratch folder's quota (${limits.scratchBytes} bytes) and was stopped`, traceback: tail };
  }
  if (s.outputExceeded) {
    return { reason: 'output-limit', message: `the program printed more than ${limits.maxOutputBytes} bytes and was stopped; the last lines are kept`, traceback: tail };
  }
  if (err) {
    const text = `${err.traceback || ''}${err.type}: ${err.message}`;
    if (MEMORY_SIGNS.test(text)) {
      return { reason: 'memory-limit', message: `the program ran out of memory (limit ${limits.memoryBytes} bytes): ${err.type}: ${err.message}`.slice(0, 2000), traceback: err.traceback };
    }
    if (err.stage === 'program') return { reason: 'program-error', message: `${err.type}: ${err.message}`.slice(0, 2000), traceback: err.traceback };
    return { reason: 'runner-error', message: `the job was refused by the harness: ${err.message}`.slice(0, 2000) };
  }
  if (MEMORY_SIGNS.test(tail) || s.signal === 'SIGKILL') {
    return { reason: 'memory-limit', message: `the capture was killed (${s.signal ?? `exit ${s.code}`}), most likely for memory`, traceback: tail };
  }
  return { reason: 'runner-error', message: `the harness ended with ${s.signal ?? `exit ${s.code}`} and no result`, traceback: tail };
}

async function collect(scratch: string, outDir: string, rows: ManifestRow[], entry: string, maxBytes: number): Promise<{ artifacts: ResultArtifact[]; analyses: Record<string, unknown>; skipped: string[] }> {
  const artifacts: ResultArtifact[] = [];
  const analyses: Record<string, unknown> = {};
  const skipped: string[] = [];
  for (const row of rows) {
    const doc = ARTIFACT_DOCS[row.name];
    if (!doc || row.file.includes('/') || row.file.includes('..')) continue;
    const raw = await readScratchFile(scratch, join(outDir, row.file), maxBytes);
    if (raw === 'too-big') {
      skipped.push(`${row.name} (over ${maxBytes} bytes)`);
      continue;
    }
    if (!raw) continue;
    const bytes = row.file.endsWith('.gz') ? gunzipSync(raw, { maxOutputLength: maxBytes + 1 }) : raw;
    if (bytes.length > maxBytes) {
      skipped.push(`${row.name} (over ${maxBytes} bytes)`);
      continue;
    }
    let text = bytes.toString('utf8');
    if (doc.kind === 'trace') {
      // One event per line, unless that made it longer than the cap.
      const readable = readableTrace(text);
      if (Buffer.byteLength(readable) <= maxBytes) text = readable;
    }
    if (row.name === 'cost' || row.name === 'memory') analyses[row.name] = JSON.parse(text) as unknown;
    artifacts.push({ name: row.name, kind: doc.kind, title: `${entry}: ${doc.title}`, text });
  }
  return { artifacts, analyses, skipped };
}

/**
 * Runs one capture request through the harness (`python -m seam_capture.run JOB OUT`) in a fresh
 * scratch directory that is removed afterwards, under the runner's limits and the request's
 * timeout, and turns what it wrote into the result body the server takes.
 */
export function executeCapture(request: CaptureRequest, runner: string, config: ExecuteConfig): { done: Promise<Execution>; cancel(): void } {
  let cancelRun: (() => void) | undefined;
  let cancelled = false;
  const done = (async (): Promise<Execution> => {
    const scratch = makeScratch();
    const quota = applyQuota(scratch, config.isolation.tmpfsQuota ? config.scratchBytes : 0, config.isolation.bwrap ? config.isolation.user : null);
    try {
      const outDir = join(scratch, 'out');
      const inside = (p: string) => pathInside(config.isolation, scratch, p);
      const job = {
        program: request.program, entry: request.entry, args: request.args,
        capture: request.capture.map((k) => HARNESS_KINDS[k]),
        options: {
          xlaFlags: request.options.xlaFlags, repeats: request.options.repeats, warmup: 2, scratchDir: inside(scratch),
          // A CPU-time backstop for a capture whose agent died (its process group outlives it).
          cpuSeconds: request.options.timeoutS * 4 + 60,
          ...(config.memoryBytes > 0 ? { memoryBytes: config.memoryBytes } : {}),
        },
      };
      await writeFile(join(scratch, 'job.json'), JSON.stringify(job));
      const env: Record<string, string> = {
        PATH: '/usr/local/bin:/usr/bin:/bin', HOME: inside(scratch), TMPDIR: inside(scratch), PYTHONPATH: config.harnessDir,
        PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1',
      };
      for (const k of config.passEnv) {
        const v = process.env[k];
        if (v !== undefined) env[k] = v;
      }
      const limits: SandboxLimits = {
        timeoutMs: request.options.timeoutS * 1000, memoryBytes: config.memoryBytes, fileBytes: config.maxArtifactBytes * 2,
        cgroup: config.cgroup, scratchBytes: config.scratchBytes, maxOutputBytes: config.maxOutputBytes, tailBytes: 16 * 1024,
      };
      const run = runSandboxed({
        argv: [config.python, '-m', 'seam_capture.run', inside(join(scratch, 'job.json')), inside(outDir)],
        scratch, readOnly: config.readOnly, env, quotaMounted: quota.mounted,
      }, limits, config.isolation);
      cancelRun = run.cancel;
      if (run.pid !== undefined) recordGroup(scratch, run.pid);
      if (cancelled) run.cancel();
      const s = await run.done;
      const result = s.code === 0 && !s.timedOut && !s.outputExceeded ? await readJson<HarnessResult>(scratch, join(outDir, 'result.json')) : null;
      if (s.cancelled) {
        return { body: { ok: false, error: { reason: 'runner-error', message: 'cancelled' } }, sandbox: s, timings: {} };
      }
      if (!result) {
        const err = await readJson<HarnessError>(scratch, join(outDir, 'error.json'));
        return { body: { ok: false, error: failureOf(s, err, request.options.timeoutS, config), provenance: { runner } }, sandbox: s, timings: {} };
      }
      const { artifacts, analyses, skipped } = await collect(scratch, outDir, result.artifacts, request.entry, config.maxArtifactBytes);
      const timings = result.timings ?? {};
      if (skipped.length > 0) analyses.skipped = skipped;
      analyses.timings = timings;
      return { body: { ok: true, artifacts, provenance: provenanceOf(result.provenance, runner), analyses }, sandbox: s, timings };
    } finally {
      quota.release();
      await rm(scratch, { recursive: true, force: true });
    }
  })();
  return {
    done,
    cancel: () => {
      cancelled = true;
      cancelRun?.();
    },
  };
}
