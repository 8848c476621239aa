import { z } from 'zod';

/**
 * Where an annotation on a trace document points: an HLO op (`hlo_op` in the module `hlo_module`,
 * as XLA tags each event) or a time range of the trace, optionally on one track. Times are
 * microseconds from the trace's start (its first event), as the trace view's axis shows them.
 */
export type TraceAnchor =
  | { readonly type: 'op'; readonly op: string; readonly module: string }
  | { readonly type: 'range'; readonly fromUs: number; readonly toUs: number; readonly track?: string };

/** Longest op, module or track name an anchor holds, in characters. */
export const MAX_TRACE_NAME = 500;
/** Latest time an anchor may name: a year, in microseconds. */
export const MAX_TRACE_US = 365 * 24 * 3600 * 1e6;

const time = z.number().finite().min(0).max(MAX_TRACE_US);
const name = z.string().min(1).max(MAX_TRACE_NAME);

/** The anchor as the room document and `POST /api/rooms/:id/annotations` accept it; unknown fields are dropped. */
export const TraceAnchorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('op'), op: name, module: z.string().max(MAX_TRACE_NAME) }),
  z
    .object({ type: z.literal('range'), fromUs: time, toUs: time, track: name.optional() })
    .refine((r) => r.fromUs <= r.toUs, { message: 'fromUs must not be after toUs', path: ['toUs'] }),
]);

/** Reads an untrusted value as a trace anchor; `undefined` when it is not one. */
export function readTraceAnchor(v: unknown): TraceAnchor | undefined {
  const r = TraceAnchorSchema.safeParse(v);
  return r.success ? (r.data as TraceAnchor) : undefined;
}

/** A duration in microseconds the way the trace view prints spans: µs below a millisecond, ms below a second, else s. */
function unitOf(us: number): { div: number; unit: string } {
  return us >= 1e6 ? { div: 1e6, unit: 's' } : us >= 1e3 ? { div: 1e3, unit: 'ms' } : { div: 1, unit: 'µs' };
}

/** A short label: `op convert_exponential_fusion` or `12.3–15.0 ms` (with ` on <track>` when it names one). */
export function traceAnchorLabel(a: TraceAnchor): string {
  if (a.type === 'op') return `op ${a.op}`;
  const { div, unit } = unitOf(Math.max(a.toUs, 1e-9));
  const digits = a.toUs / div >= 100 ? 0 : 1;
  const range = `${(a.fromUs / div).toFixed(digits)}–${(a.toUs / div).toFixed(digits)} ${unit}`;
  return a.track ? `${range} on ${a.track}` : range;
}
