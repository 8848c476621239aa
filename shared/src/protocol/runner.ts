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
      if (typeof v.name !== 'string' || v.name.length === 0 || v.name.length > 128 || !isObject(c)) return null;
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
