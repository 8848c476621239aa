import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyze, computeGate, formatMB, GateError, type GateResult } from '@seam/shared/ir';
import { DocumentKind, MeasuredBandwidthSchema, type MeasuredBandwidth } from '@seam/shared/model';
import type { Output } from './analyze-command';
import { columns } from './format';
import { readTraceOpTimes, TraceReadError } from './trace-op-times';

/**
 * A capture folder as the capture harness writes it (`python -m seam_capture.run JOB OUT_DIR` with
 * `hlo-opt` and `trace` asked for): the optimized HLO, the profiler trace (read by the reducer the
 * server runs at ingest, so the room, the export and this command sum the same rows), `result.json` (whose
 * `provenance.bandwidth` is the measured copy bandwidth and `trace.repeats` the runs the trace
 * covers) and, when asked for, the cost analysis.
 */
export const CAPTURE_FILES = {
  hloOpt: 'hlo-opt.txt',
  trace: ['trace.json.gz', 'trace.json', 'trace.xplane.pb'],
  result: 'result.json',
  cost: 'cost.json',
} as const;

/** Exit statuses of `seam gate`. */
export const GATE_EXIT = { pass: 0, fail: 1, usage: 2, unusable: 3 } as const;

export interface GateOptions {
  readonly value?: string;
  readonly bar: number;
  readonly json: boolean;
}

/** The folder cannot give a gate; the message says which file and why. */
class CaptureDirError extends Error {}

interface CaptureDir {
  readonly hlo: string;
  readonly tracePath: string;
  readonly bandwidth: MeasuredBandwidth;
  readonly runs?: number;
  readonly costModelBytes?: number;
}

/**
 * `seam gate CAPTURE_DIR [--value NAME] [--bar 0.2] [--json]`: the course's gate on one capture
 * folder. Resolves to 0 when measured bytes are within the bar of the estimate, 1 when not, 3 when
 * the folder cannot give a gate (a file missing or unreadable, no measured bandwidth, no candidate,
 * an op missing from the trace).
 */
export async function runGate(dir: string, options: GateOptions, io: Output): Promise<number> {
  let capture: CaptureDir;
  let gate: GateResult;
  try {
    capture = await readCaptureDir(dir);
    const analysis = analyze(capture.hlo, DocumentKind.hloOpt);
    const opTimes = await readTraceOpTimes(capture.tracePath);
    gate = computeGate({
      index: analysis.index, opTimes, bandwidthBytesPerS: capture.bandwidth.bytesPerSecond, bar: options.bar,
      ...(options.value !== undefined ? { candidate: options.value } : {}),
      ...(capture.runs !== undefined ? { runs: capture.runs } : {}),
      ...(capture.costModelBytes !== undefined ? { costModelBytes: capture.costModelBytes } : {}),
    });
  } catch (e) {
    if (!(e instanceof CaptureDirError || e instanceof GateError || e instanceof TraceReadError)) throw e;
    const what = e instanceof GateError ? `${e.code}: ${e.message}` : e.message;
    if (options.json) io.out(JSON.stringify({ dir, error: what }));
    else io.err(`seam: gate ${dir}: ${what}`);
    return GATE_EXIT.unusable;
  }
  if (options.json) io.out(JSON.stringify({ dir, trace: capture.tracePath, bandwidth: capture.bandwidth, gate }));
  else for (const line of describeGate(dir, capture, gate)) io.out(line);
  return gate.pass ? GATE_EXIT.pass : GATE_EXIT.fail;
}

async function readCaptureDir(dir: string): Promise<CaptureDir> {
  const hlo = await readText(join(dir, CAPTURE_FILES.hloOpt));
  let tracePath: string | undefined;
  for (const name of CAPTURE_FILES.trace) {
    const p = join(dir, name);
    if (await access(p).then(() => true, () => false)) {
      tracePath = p;
      break;
    }
  }
  if (tracePath === undefined) throw new CaptureDirError(`no trace in the folder (${CAPTURE_FILES.trace.join(' or ')}): capture with "trace"`);
  const result = parseJson(join(dir, CAPTURE_FILES.result), await readText(join(dir, CAPTURE_FILES.result))) as {
    provenance?: { bandwidth?: unknown }; trace?: { repeats?: unknown };
  } | null;
  const raw = result?.provenance?.bandwidth;
  if (raw === undefined) throw new CaptureDirError(`${CAPTURE_FILES.result} has no provenance.bandwidth: the capture measured no copy bandwidth (a harness from before the gate, or no trace asked for)`);
  const bw = MeasuredBandwidthSchema.safeParse(raw);
  if (!bw.success) throw new CaptureDirError(`${CAPTURE_FILES.result}: provenance.bandwidth is not a usable measurement (${bw.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
  const repeats = result?.trace?.repeats;
  const runs = typeof repeats === 'number' && Number.isInteger(repeats) && repeats > 0 ? repeats : undefined;
  let costModelBytes: number | undefined;
  const costText = await readFile(join(dir, CAPTURE_FILES.cost), 'utf8').catch(() => undefined);
  if (costText !== undefined) {
    const accessed = (parseJson(join(dir, CAPTURE_FILES.cost), costText) as Record<string, unknown> | null)?.['bytes accessed'];
    if (typeof accessed === 'number' && Number.isFinite(accessed) && accessed >= 0) costModelBytes = accessed;
  }
  return { hlo, tracePath, bandwidth: bw.data, ...(runs !== undefined ? { runs } : {}), ...(costModelBytes !== undefined ? { costModelBytes } : {}) };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new CaptureDirError(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CaptureDirError(`${path} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const us = (n: number): string => n.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The human report: the ops summed, then each figure and where it came from. */
export function describeGate(dir: string, capture: CaptureDir, g: GateResult): string[] {
  const c = g.candidate;
  const bw = capture.bandwidth;
  const plate = bw.nameplateBytesPerSecond === null
    ? `no nameplate figure for device kind ${bw.deviceKind ?? 'unknown'}`
    : `${((bw.fractionOfNameplate ?? 0) * 100).toFixed(1)}% of the ${(bw.nameplateBytesPerSecond / 1e9).toFixed(0)} GB/s nameplate`;
  const per = g.runs !== undefined ? `per run (${g.runs} runs)` : 'per occurrence';
  const lines = [`gate for ${c.name} (${c.type}, line ${c.line}${c.module ? ` of ${c.module}` : ''}) in ${dir}`];
  lines.push(...columns([
    ['  role', 'op', 'line', 'events', 'total µs', `µs ${per}`],
    ...g.ops.map((o) => [`  ${o.role}`, o.op, String(o.line ?? '-'), String(o.count), us(o.totalUs), us(o.perRunUs)]),
  ]));
  const rows: string[][] = [
    ['  estimate (dump)', formatMB(g.estimateBytes), `${c.bytes.toLocaleString('en-US')} B × (1 write + ${c.consumers.length} read${c.consumers.length === 1 ? '' : 's'})`],
    ['  measured', formatMB(g.measuredBytes), `${us(g.measuredSeconds * 1e6)} µs × ${(g.bandwidthBytesPerS / 1e9).toFixed(2)} GB/s measured copy bandwidth (${plate})`],
  ];
  if (g.costModelBytes !== undefined) rows.push(['  cost model', formatMB(g.costModelBytes), `bytes accessed by the whole module, from ${CAPTURE_FILES.cost}`]);
  rows.push(['  measured / estimate', g.ratios.measuredToEstimate.toFixed(3), '']);
  if (g.ratios.costModelToEstimate !== undefined) rows.push(['  cost model / estimate', g.ratios.costModelToEstimate.toFixed(3), '']);
  const off = Math.abs(g.ratios.measuredToEstimate - 1) * 100;
  rows.push(['  result', g.pass ? 'PASS' : 'FAIL', `${off.toFixed(1)}% off, bar ${+(g.bar * 100).toFixed(2)}%`]);
  lines.push(...columns(rows));
  return lines;
}
