import { Hono } from 'hono';
import { computeGate, DEFAULT_GATE_BAR, GateError, type Analysis, type GateResult, type OpTime } from '@seam/shared/ir';
import {
  DocumentKind, ROLES, type DocumentMeta, type GateCandidate, type GateReport, type GateSources, type GateUnavailable, type GateUnavailableReason,
} from '@seam/shared/model';
import type { OpAggregate } from '@seam/shared/trace';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { opTimesOf } from '../cli/trace-op-times';
import { badRequest, notFound } from '../errors';
import { gunzipAsync } from '../gunzip';
import type { CaptureService } from '../jobs/service';

/** Candidates listed with their measured time, at most. */
const MAX_CANDIDATES = 100;

/** A capture group cannot give a gate: `reason` names the missing piece, the message how to get it. */
export class GateUnavailableError extends Error {
  override name = 'GateUnavailableError';
  constructor(readonly reason: GateUnavailableReason, message: string) {
    super(message);
  }
}

export interface GateRequest {
  /** The spill candidate, by producer name; the top one when absent. */
  readonly value?: string;
  readonly bar?: number;
}

type GateDeps = Pick<AppDeps, 'content' | 'texts'> & { readonly jobs: CaptureService };

/** Whether a document is the capture's cost analysis (`<entry>: cost analysis`, the harness's `cost` JSON). */
const isCostAnalysis = (d: DocumentMeta): boolean => d.kind === DocumentKind.text && /(^|: )cost analysis$/.test(d.title);

const json = async <T>(gz: Uint8Array): Promise<T> => JSON.parse((await gunzipAsync(gz)).toString('utf8')) as T;

/**
 * The course's gate for capture group `captureId` of room `roomId`, from what the server stored:
 * the group's optimized HLO analysis (candidate, consumers, estimate), its trace's per-op
 * aggregates (hardware time), the copy bandwidth in the capture's provenance, the runs the
 * capture request asked the trace to record, and the cost analysis's `bytes accessed` when the
 * group has one. The same stored pieces always give the same numbers. Throws
 * {@link GateUnavailableError} when a piece is missing or the gate refuses them.
 */
export async function captureGate(deps: GateDeps, roomId: string, captureId: string, request: GateRequest = {}): Promise<GateReport> {
  const job = await deps.jobs.queue.get(captureId);
  if (!job || job.roomId !== roomId) throw notFound(`no capture ${captureId} in this room`);
  const group = (await deps.content.documents.list(roomId)).filter((d) => d.captureId === captureId);
  const hlo = group.find((d) => d.kind === DocumentKind.hloOpt);
  if (!hlo) throw new GateUnavailableError('no-hlo-opt', 'the capture group has no optimized HLO: capture with "hlo-opt"');
  let trace: DocumentMeta | undefined;
  for (const d of group) {
    if (d.kind === DocumentKind.trace && (await deps.content.traces.has(d.sha256))) {
      trace = d;
      break;
    }
  }
  if (!trace) throw new GateUnavailableError('no-trace', 'the capture group has no reduced trace: capture with "trace"');
  const bandwidth = job.provenance?.bandwidth;
  if (!bandwidth) throw new GateUnavailableError('no-bandwidth', 'the capture measured no copy bandwidth (its runner predates the gate)');
  const analysisGz = await deps.content.documents.analysisGzip(hlo.sha256);
  if (!analysisGz) throw new GateUnavailableError('no-analysis', `no analysis is stored for ${hlo.title}`);
  const { index } = await json<Analysis>(analysisGz);
  const ops = await deps.content.traces.part(trace.sha256, 'ops');
  if (!ops) throw new GateUnavailableError('no-trace', `no per-op times are stored for ${trace.title}`);
  const opTimes = opTimesOf(await json<OpAggregate[]>(ops));
  const runs = job.request.options.repeats;
  const costDoc = group.find(isCostAnalysis);
  const costModelBytes = costDoc ? await bytesAccessed(deps, costDoc) : undefined;
  const base = { index, opTimes, bandwidthBytesPerS: bandwidth.bytesPerSecond, runs, ...(costModelBytes !== undefined ? { costModelBytes } : {}) };
  let gate: GateResult;
  try {
    gate = computeGate({ ...base, bar: request.bar ?? DEFAULT_GATE_BAR, ...(request.value !== undefined ? { candidate: request.value } : {}) });
  } catch (e) {
    if (e instanceof GateError) throw new GateUnavailableError(e.code, e.message);
    throw e;
  }
  const sources: GateSources = {
    hloOpt: { documentId: hlo.id, title: hlo.title },
    trace: { documentId: trace.id, title: trace.title },
    ...(costDoc && costModelBytes !== undefined ? { cost: { documentId: costDoc.id, title: costDoc.title, field: 'bytes accessed' as const } } : {}),
    bandwidth,
    runs,
  };
  const platform = job.provenance?.platform;
  return { captureId, gate, sources, candidates: candidatesOf(base), ...(platform ? { platform } : {}) };
}

/** The cost analysis's `bytes accessed`, when its text is JSON with that number. */
async function bytesAccessed(deps: GateDeps, doc: DocumentMeta): Promise<number | undefined> {
  const text = await deps.texts.get(doc.sha256);
  if (text === undefined) return undefined;
  try {
    const v = (JSON.parse(text) as Record<string, unknown> | null)?.['bytes accessed'];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Each spill candidate (one per producer, by traffic) with the hardware time per run of its ops. */
function candidatesOf(base: { index: Analysis['index']; opTimes: OpTime[]; bandwidthBytesPerS: number; runs: number }): GateCandidate[] {
  const out: GateCandidate[] = [];
  const seen = new Set<string>();
  for (const s of base.index.spills) {
    if (out.length >= MAX_CANDIDATES) break;
    if (seen.has(s.producer)) continue;
    seen.add(s.producer);
    let measuredUs: number | null = null;
    try {
      measuredUs = computeGate({ ...base, candidate: s.producer }).measuredSeconds * 1e6;
    } catch (e) {
      if (!(e instanceof GateError)) throw e;
    }
    out.push({ name: s.producer, type: s.type, bytes: s.bytes, estimateBytes: s.traffic, measuredUs });
  }
  return out;
}

/** `?bar=` as a fraction: `0.2`, or a percentage `20%`. */
function parseBar(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const pct = raw.endsWith('%');
  const n = Number(pct ? raw.slice(0, -1) : raw);
  if (!Number.isFinite(n) || n < 0) throw badRequest('?bar= must be a non-negative fraction (0.2) or percentage (20%)');
  return pct ? n / 100 : n;
}

/**
 * `GET /api/rooms/:id/captures/:jobId/gate?value=&bar=`: the gate of a capture group from what is
 * stored (see {@link captureGate}), with the source of every figure and the group's candidates
 * with their measured time. Any role may read. 404 for an unknown capture; 409 `conflict` with a
 * `reason` when the group cannot give a gate.
 */
export function gateRoutes(deps: GateDeps & Pick<AppDeps, 'store' | 'directory'>): Hono {
  const app = new Hono();
  app.get('/:id/captures/:jobId/gate', async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, ROLES);
    const value = c.req.query('value');
    const bar = parseBar(c.req.query('bar'));
    const request: GateRequest = { ...(value ? { value } : {}), ...(bar !== undefined ? { bar } : {}) };
    try {
      return c.json(await captureGate(deps, roomId, c.req.param('jobId'), request));
    } catch (e) {
      if (!(e instanceof GateUnavailableError)) throw e;
      const body: GateUnavailable = { captureId: c.req.param('jobId'), reason: e.reason, message: e.message };
      return c.json({ error: { code: 'conflict', ...body } }, 409);
    }
  });
  return app;
}
