import type { DocumentKind } from '../model/document';
import type { CaptureError, CaptureProvenance, CaptureRequest } from '../model/jobs';

/**
 * The runner ↔ server protocol: JSON text frames on the WebSocket `/runner`, authenticated by a
 * runner token in `Authorization: Bearer`. Results travel over HTTP (see docs/runner-protocol.md).
 */
export const RunnerMessage = {
  /** Agent → server, first frame: name and capabilities. */
  hello: 'hello',
  /** Server → agent: the runner's id and the lease timings it must keep. */
  welcome: 'welcome',
  /** Agent → server: it can take a job now. */
  ready: 'ready',
  /** Agent → server: still alive; renews the leases of the jobs it holds. */
  heartbeat: 'heartbeat',
  /** Server → agent: a leased job (one attempt of it). */
  job: 'job',
  /** Agent → server: progress of a job attempt. */
  status: 'status',
  /** Server → agent: stop a job attempt (cancelled, or its lease was lost). */
  cancel: 'cancel',
  /** Server → agent: a refused frame, before the socket closes if it was fatal. */
  error: 'error',
} as const;
export type RunnerMessageType = (typeof RunnerMessage)[keyof typeof RunnerMessage];

/** What a runner has, probed through its Python: platform (`cpu`, `gpu`, `tpu`), device kind and count, versions. */
export interface RunnerCapabilities {
  readonly platform: string;
  readonly deviceKind: string;
  readonly deviceCount: number;
  readonly jax: string;
  readonly jaxlib: string;
  readonly python: string;
  /** How the runner confines captures: inside bubblewrap or not, and the layers in force (see docs/runners.md). */
  readonly isolation?: RunnerIsolation;
}

/** A runner's capture isolation, as it reports it in its hello. */
export interface RunnerIsolation {
  readonly sandboxed: boolean;
  /** Short layer names, e.g. `bwrap`, `netns`, `uid:seam-sandbox`, `cgroup-v1:memory,pids,cpu`, `tmpfs-quota`. */
  readonly layers: readonly string[];
}

export interface HelloMessage { readonly type: 'hello'; readonly name: string; readonly capabilities: RunnerCapabilities; readonly agent: string }
export interface WelcomeMessage { readonly type: 'welcome'; readonly runnerId: string; readonly heartbeatMs: number; readonly leaseMs: number }
export interface ReadyMessage { readonly type: 'ready' }
export interface HeartbeatMessage { readonly type: 'heartbeat'; readonly jobs: readonly JobRef[] }
export interface JobMessage { readonly type: 'job'; readonly jobId: string; readonly attempt: number; readonly request: CaptureRequest }
export interface StatusMessage { readonly type: 'status'; readonly jobId: string; readonly attempt: number; readonly phase: string }
export interface CancelMessage { readonly type: 'cancel'; readonly jobId: string; readonly attempt: number; readonly reason: string }
export interface ErrorMessage { readonly type: 'error'; readonly code: string; readonly message: string }

/** One attempt of one job: the unit of a lease and of exactly-once result application. */
export interface JobRef { readonly jobId: string; readonly attempt: number }

export type AgentToServer = HelloMessage | ReadyMessage | HeartbeatMessage | StatusMessage;
export type ServerToAgent = WelcomeMessage | JobMessage | CancelMessage | ErrorMessage;

/**
 * One artifact of a finished capture, as text: a dump, the profiler trace as Chrome-trace JSON, the
 * per-op table or an analysis as JSON. `name` is the harness's artifact name (`hlo-opt`, `ops`…).
 */
export interface ResultArtifact {
  readonly name: string;
  readonly kind: DocumentKind;
  readonly title: string;
  readonly text: string;
}

/**
 * Body of `POST /api/runner/jobs/:jobId/attempts/:attempt/result`: either the artifacts or the
 * error. Posting the same attempt's result again is answered with the first outcome.
 */
export type ResultBody =
  | { readonly ok: true; readonly artifacts: readonly ResultArtifact[]; readonly provenance: CaptureProvenance; readonly analyses?: Record<string, unknown> }
  | { readonly ok: false; readonly error: CaptureError; readonly provenance?: CaptureProvenance };

/** Largest frame either side sends on the runner socket, in bytes. */
export const MAX_RUNNER_FRAME = 1024 * 1024;

/** Bounds on what an agent's frames may carry; a frame past one is refused, naming it. */
export const RUNNER_LIMITS = {
  /** Characters of a runner name. */
  name: 128,
  /** Characters of any capability string (platform, device kind, versions, …) and of the agent string. */
  text: 128,
  /** Devices a runner may report. */
  devices: 4096,
  /** Entries of any list in the capabilities, and keys of any object in them. */
  entries: 64,
  /** Jobs one heartbeat may name. */
  heartbeatJobs: 64,
  /** Characters of a job id. */
  jobId: 128,
} as const;

/** The first way `value` (a capability, at `path`) exceeds `RUNNER_LIMITS`, or null when it is within them. */
function capabilityProblem(path: string, value: unknown, depth: number): string | null {
  if (typeof value === 'string') return value.length > RUNNER_LIMITS.text ? `${path} is longer than ${RUNNER_LIMITS.text} characters` : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} is not a finite number`;
  if (typeof value === 'boolean' || value === null || value === undefined) return null;
  if (depth >= 3) return `${path} is nested too deeply`;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as object);
  if (entries.length > RUNNER_LIMITS.entries) return `${path} has more than ${RUNNER_LIMITS.entries} entries`;
  for (const [k, v] of entries) {
    if (k.length > RUNNER_LIMITS.text) return `a key of ${path} is longer than ${RUNNER_LIMITS.text} characters`;
    const problem = capabilityProblem(`${path}.${k}`, v, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/**
 * The first way a well-formed agent message exceeds `RUNNER_LIMITS` (capability strings, device
 * count, list entries, heartbeat jobs, job ids), or null when it is within them. The server refuses
 * such a frame with this reason.
 */
export function agentMessageProblem(msg: AgentToServer): string | null {
  const jobId = (id: string) => (id.length > RUNNER_LIMITS.jobId ? `a job id is longer than ${RUNNER_LIMITS.jobId} characters` : null);
  switch (msg.type) {
    case 'hello': {
      const count = msg.capabilities.deviceCount;
      if (!Number.isInteger(count) || count < 0 || count > RUNNER_LIMITS.devices) return `capabilities.deviceCount must be an integer from 0 to ${RUNNER_LIMITS.devices}`;
      if (msg.agent.length > RUNNER_LIMITS.text) return `agent is longer than ${RUNNER_LIMITS.text} characters`;
      return capabilityProblem('capabilities', msg.capabilities, 0);
    }
    case 'heartbeat':
      if (msg.jobs.length > RUNNER_LIMITS.heartbeatJobs) return `a heartbeat may name at most ${RUNNER_LIMITS.heartbeatJobs} jobs`;
      return msg.jobs.map((j) => jobId(j.jobId)).find((p) => p !== null) ?? null;
    case 'status':
      return jobId(msg.jobId);
    default:
      return null;
  }
}

/** Serializes a runner-socket frame. */
export function writeRunnerMessage(msg: AgentToServer | ServerToAgent): string {
  return JSON.stringify(msg);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A frame's JSON object, or `null` when the frame is not JSON or not an object. */
function parseObject(data: string): Record<string, unknown> | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  return isObject(v) ? v : null;
}

function isRef(v: unknown): v is JobRef {
  return isObject(v) && typeof v.jobId === 'string' && Number.isInteger(v.attempt);
}

/** Reads an agent's frame; `null` when it is not a well-formed agent message. */
export function readAgentMessage(data: string): AgentToServer | null {
  const v = parseObject(data);
  if (!v) return null;
  switch (v.type) {
    case 'hello': {
      const c = v.capabilities;
      if (typeof v.name !== 'string' || v.name.length === 0 || v.name.length > RUNNER_LIMITS.name || !isObject(c)) return null;
      const caps: RunnerCapabilities = {
        platform: String(c.platform ?? 'unknown'), deviceKind: String(c.deviceKind ?? 'unknown'),
        deviceCount: Number(c.deviceCount ?? 0), jax: String(c.jax ?? ''), jaxlib: String(c.jaxlib ?? ''),
        python: String(c.python ?? ''),
        ...(isObject(c.isolation) ? {
          isolation: { sandboxed: c.isolation.sandboxed === true, layers: Array.isArray(c.isolation.layers) ? c.isolation.layers.map(String) : [] },
        } : {}),
      };
      return { type: 'hello', name: v.name, capabilities: caps, agent: String(v.agent ?? '') };
    }
    case 'ready':
      return { type: 'ready' };
    case 'heartbeat':
      return Array.isArray(v.jobs) && v.jobs.every(isRef) ? { type: 'heartbeat', jobs: v.jobs } : null;
    case 'status':
      return isRef(v) && typeof v.phase === 'string'
        ? { type: 'status', jobId: v.jobId, attempt: v.attempt, phase: v.phase.slice(0, 200) }
        : null;
    default:
      return null;
  }
}

/** Reads a server frame on the agent side; `null` when it is not a well-formed server message. */
export function readServerMessage(data: string): ServerToAgent | null {
  const v = parseObject(data);
  if (!v) return null;
  switch (v.type) {
    case 'welcome':
      return typeof v.runnerId === 'string' && typeof v.heartbeatMs === 'number' && typeof v.leaseMs === 'number'
        ? (v as unknown as WelcomeMessage) : null;
    case 'job':
      return isRef(v) && isObject(v.request) ? (v as unknown as JobMessage) : null;
    case 'cancel':
      return isRef(v) ? { type: 'cancel', jobId: v.jobId, attempt: v.attempt, reason: String(v.reason ?? '') } : null;
    case 'error':
      return { type: 'error', code: String(v.code ?? ''), message: String(v.message ?? '') };
    default:
      return null;
  }
}
