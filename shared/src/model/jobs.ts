import { z } from 'zod';

/** What a capture can produce. `hlo` is HLO before optimization, `hlo-opt` after. */
export const CaptureKind = {
  jaxpr: 'jaxpr',
  stablehlo: 'stablehlo',
  hlo: 'hlo',
  hloOpt: 'hlo-opt',
  cost: 'cost',
  memory: 'memory',
  trace: 'trace',
} as const;
export type CaptureKind = (typeof CaptureKind)[keyof typeof CaptureKind];
export const CAPTURE_KINDS = Object.values(CaptureKind) as [CaptureKind, ...CaptureKind[]];

/** What a capture asks for when the request names nothing: everything but the trace (which runs the program). */
export const DEFAULT_CAPTURE: readonly CaptureKind[] = ['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'cost', 'memory'];

/** Lifecycle of a capture job. `done`, `failed` and `cancelled` are final. */
export const JobStatus = {
  queued: 'queued',
  running: 'running',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];
export const JOB_STATUSES = Object.values(JobStatus) as [JobStatus, ...JobStatus[]];

/** True when a job in `status` will not change any more. */
export function isFinalStatus(status: JobStatus): boolean {
  return status === 'done' || status === 'failed' || status === 'cancelled';
}

/** Dtypes a capture argument may have (the names `jax.numpy` accepts). */
export const DTYPES = [
  'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
  'float16', 'bfloat16', 'float32', 'float64', 'float8_e4m3fn', 'float8_e5m2', 'complex64', 'complex128',
] as const;
export type Dtype = (typeof DTYPES)[number];

/** Timeout of one capture when the request gives none, in seconds. */
export const DEFAULT_TIMEOUT_S = 120;
/** Longest timeout a request may ask for, in seconds. */
export const MAX_TIMEOUT_S = 3600;
/** Largest program text a request may carry, in bytes of UTF-16 code units. */
export const MAX_PROGRAM_CHARS = 256 * 1024;

/** One argument of the entry function, built in the harness as `jax.ShapeDtypeStruct(shape, dtype)`. */
export const ArgSpecSchema = z.object({
  shape: z.array(z.number().int().min(0).max(1 << 30)).max(16),
  dtype: z.enum(DTYPES),
});
export type ArgSpec = z.infer<typeof ArgSpecSchema>;

/** Options of one capture. `repeats` is how many timed runs a trace records after warm-up. */
export const CaptureOptionsSchema = z.object({
  xlaFlags: z.string().max(4096).regex(/^[^\n\r\0]*$/, 'xlaFlags must be one line').default(''),
  timeoutS: z.number().int().min(1).max(MAX_TIMEOUT_S).default(DEFAULT_TIMEOUT_S),
  repeats: z.number().int().min(1).max(100).default(3),
});
export type CaptureOptions = z.infer<typeof CaptureOptionsSchema>;

/**
 * Body of `POST /api/rooms/:id/captures`. `runner` names the runner to use; without it any idle
 * runner takes the job. Defaults: capture {@link DEFAULT_CAPTURE}, timeout 120 s, 3 repeats.
 */
export const CaptureRequestSchema = z.object({
  program: z.string().min(1).max(MAX_PROGRAM_CHARS),
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'entry must be a Python identifier'),
  args: z.array(ArgSpecSchema).max(64),
  capture: z.array(z.enum(CAPTURE_KINDS)).min(1).max(CAPTURE_KINDS.length).default([...DEFAULT_CAPTURE]),
  runner: z.string().min(1).max(128).optional(),
  options: CaptureOptionsSchema.default({ xlaFlags: '', timeoutS: DEFAULT_TIMEOUT_S, repeats: 3 }),
  /**
   * "Run again": the id of the capture this one re-runs (a finished capture of the same room and
   * entry function). The new capture becomes its next version, and the annotations on its dumps
   * are carried over to the new dumps once they are stored.
   */
  previous: z.string().regex(/^cap_[A-Za-z0-9_-]{1,64}$/, 'previous must be a capture id').optional(),
});
/** A validated capture request, defaults filled in. */
export type CaptureRequest = z.infer<typeof CaptureRequestSchema>;
/** A capture request as a client may send it, before defaults. */
export type CaptureRequestInput = z.input<typeof CaptureRequestSchema>;

/**
 * The device's copy bandwidth as the capture measured it beside a trace (a jitted elementwise
 * kernel that reads and writes `bytes` in all), with the datasheet figure when the device kind is
 * known (`null` for CPUs and unknown kinds). Bounded: a runner's numbers are checked, not trusted.
 */
export const MeasuredBandwidthSchema = z.object({
  method: z.string().max(200),
  bytes: z.number().int().positive().max(2 ** 40),
  calls: z.number().int().min(1).max(10_000),
  trials: z.number().int().min(1).max(10_000),
  seconds: z.number().positive().max(3600),
  bytesPerSecond: z.number().positive().max(1e15),
  bestBytesPerSecond: z.number().positive().max(1e15),
  deviceKind: z.string().max(128).nullable(),
  nameplateBytesPerSecond: z.number().positive().max(1e15).nullable(),
  fractionOfNameplate: z.number().min(0).max(100).nullable(),
});
export type MeasuredBandwidth = z.infer<typeof MeasuredBandwidthSchema>;

/** Where and with what a capture ran: the runner, its device and the versions that produced the dumps. */
export interface CaptureProvenance {
  readonly runner: string;
  readonly platform?: string;
  readonly deviceKind?: string;
  readonly deviceCount?: number;
  readonly jax?: string;
  readonly jaxlib?: string;
  readonly python?: string;
  readonly xlaFlags?: string;
  /** Present when the capture recorded a trace. */
  readonly bandwidth?: MeasuredBandwidth;
  readonly startedAt?: number;
  readonly finishedAt?: number;
}

/** Why a job failed, as shown in the room. `traceback` is the Python traceback when the program raised. */
export interface CaptureError {
  readonly reason: 'program-error' | 'timeout' | 'memory-limit' | 'output-limit' | 'runner-lost' | 'runner-error' | 'ingest-error';
  readonly message: string;
  readonly traceback?: string;
}

/**
 * What carrying a re-run's annotations over did: `annotations` copies made (placed or detached),
 * `detached` of them with no matching line, `notCarried` left on the previous capture only because
 * the capture carries at most `MAX_CARRIED`.
 */
export interface CarriedCounts {
  readonly annotations: number;
  readonly detached: number;
  readonly notCarried: number;
}

/**
 * One value of the room document's server-written `captures` map (job id → this JSON). The room
 * shows it as the live queue; `documents` are the ids of the capture group's dumps once done.
 */
export interface CaptureEntry {
  readonly id: string;
  readonly status: JobStatus;
  readonly attempt: number;
  readonly entry: string;
  readonly args: readonly ArgSpec[];
  readonly capture: readonly CaptureKind[];
  readonly requestedBy: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Runner name the request asked for, if any. */
  readonly runner?: string;
  /** Name of the runner holding the job while it runs. */
  readonly runningOn?: string;
  /** Latest progress line streamed by the runner while running (e.g. "compiling"). */
  readonly phase?: string;
  readonly provenance?: CaptureProvenance;
  readonly documents: readonly string[];
  /** Cost and memory analyses as the harness reported them (numbers by name, e.g. `flops`). */
  readonly analyses?: Readonly<Record<string, unknown>>;
  readonly error?: CaptureError;
  /** The options it ran with (what "Run again" runs with again). */
  readonly options?: CaptureOptions;
  /** Set on a re-run ("Run again"): the id of the capture it re-runs. */
  readonly versionOf?: string;
  /** Set with `versionOf`: its version number, the previous one's plus one (a first capture is version 1). */
  readonly version?: number;
  /** Set on a finished re-run: the annotations carried over from the previous version. */
  readonly carried?: CarriedCounts;
}

/** Formats an argument spec the way the Capture panel shows it, e.g. `bf16[8192,128]`. */
export function formatArgSpec(spec: ArgSpec): string {
  const short: Partial<Record<Dtype, string>> = {
    bfloat16: 'bf16', float16: 'f16', float32: 'f32', float64: 'f64', int8: 's8', int16: 's16',
    int32: 's32', int64: 's64', uint8: 'u8', uint16: 'u16', uint32: 'u32', uint64: 'u64', bool: 'pred',
  };
  return `${short[spec.dtype] ?? spec.dtype}[${spec.shape.join(',')}]`;
}

const LONG_DTYPE: Readonly<Record<string, Dtype>> = {
  bf16: 'bfloat16', f16: 'float16', f32: 'float32', f64: 'float64', s8: 'int8', s16: 'int16', s32: 'int32',
  s64: 'int64', i8: 'int8', i16: 'int16', i32: 'int32', i64: 'int64', u8: 'uint8', u16: 'uint16',
  u32: 'uint32', u64: 'uint64', pred: 'bool',
};

/**
 * Reads an argument spec typed as `bf16[8192,128]` (or `float32[]` for a scalar); returns a
 * message instead of throwing when the text is not one.
 */
export function parseArgSpec(text: string): ArgSpec | { readonly error: string } {
  // e.g. "bf16[8192, 128]", "float32[]"
  const m = /^\s*([a-z0-9_]+)\s*\[\s*([0-9,\s]*)\]\s*$/.exec(text);
  if (!m) return { error: `"${text}" is not of the form dtype[d0,d1,…]` };
  const name = m[1] ?? '';
  const dtype = LONG_DTYPE[name] ?? (DTYPES as readonly string[]).find((d) => d === name);
  if (!dtype) return { error: `unknown dtype "${name}"` };
  const dims = (m[2] ?? '').split(',').map((d) => d.trim()).filter((d) => d !== '');
  const parsed = ArgSpecSchema.safeParse({ shape: dims.map(Number), dtype });
  return parsed.success ? parsed.data : { error: `bad shape in "${text}"` };
}
