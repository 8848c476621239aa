import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { OpTime } from '@seam/shared/ir';

/** A trace file that cannot be read as a Chrome/Perfetto JSON trace; the message says why. */
export class TraceReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceReadError';
  }
}

/** Largest trace this reader takes, decompressed: it holds the JSON whole. */
export const MAX_TRACE_JSON_BYTES = 512 * 1024 * 1024;

interface TraceEvent {
  readonly ph?: unknown;
  readonly dur?: unknown;
  readonly args?: { readonly hlo_op?: unknown; readonly hlo_module?: unknown };
}

/**
 * Per-op hardware time of a Chrome/Perfetto JSON trace (`.json` or `.json.gz`): the complete
 * events (`ph: "X"`) that XLA tags with `args.hlo_op`, summed by module and op, longest first.
 * Every other event (host threads, Python frames, markers) is skipped. The whole JSON is read at
 * once, so it is meant for capture-sized traces on the command line.
 */
export async function readTraceOpTimes(path: string): Promise<OpTime[]> {
  const raw = await readFile(path);
  let bytes: Buffer = raw;
  if (raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      bytes = gunzipSync(raw, { maxOutputLength: MAX_TRACE_JSON_BYTES });
    } catch (e) {
      throw new TraceReadError(`${path}: not a readable gzip file (${e instanceof Error ? e.message : String(e)})`);
    }
  } else if (raw.length > MAX_TRACE_JSON_BYTES) {
    throw new TraceReadError(`${path}: ${raw.length} bytes, past this reader's ${MAX_TRACE_JSON_BYTES}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new TraceReadError(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const events = Array.isArray(data) ? data : (data as { traceEvents?: unknown } | null)?.traceEvents;
  if (!Array.isArray(events)) throw new TraceReadError(`${path}: no traceEvents list: not a Chrome/Perfetto JSON trace`);
  return opTimesOf(events as readonly TraceEvent[]);
}

/** Sums the `hlo_op` complete events of a trace by module and op, longest total first. */
export function opTimesOf(events: readonly TraceEvent[]): OpTime[] {
  const rows = new Map<string, { module: string; op: string; totalUs: number; count: number }>();
  for (const e of events) {
    if (e === null || typeof e !== 'object' || e.ph !== 'X') continue;
    const op = e.args?.hlo_op;
    if (typeof op !== 'string' || op === '') continue;
    const module = typeof e.args?.hlo_module === 'string' ? e.args.hlo_module : '';
    const dur = typeof e.dur === 'number' && Number.isFinite(e.dur) && e.dur > 0 ? e.dur : 0;
    const key = `${module}\u0000${op}`;
    const row = rows.get(key);
    if (row) {
      row.totalUs += dur;
      row.count++;
    } else rows.set(key, { module, op, totalUs: dur, count: 1 });
  }
  return [...rows.values()]
    .map((r) => (r.module === '' ? { op: r.op, totalUs: r.totalUs, count: r.count } : r))
    .sort((a, b) => b.totalUs - a.totalUs || (a.op < b.op ? -1 : a.op > b.op ? 1 : 0));
}
