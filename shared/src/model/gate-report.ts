import type { GateResult } from '../ir/gate';
import type { MeasuredBandwidth } from './jobs';

/**
 * The gate of one capture group as the server computes it from what it stored
 * (`GET /api/rooms/:id/captures/:jobId/gate`): the result, and where every figure came from.
 */

/** A stored document a figure was read from. */
export interface GateSourceDocument {
  readonly documentId: string;
  readonly title: string;
}

/** Where the gate's inputs came from. */
export interface GateSources {
  /** The optimized HLO whose stored analysis gave the candidate, its consumers and the estimate. */
  readonly hloOpt: GateSourceDocument;
  /** The trace whose stored per-op aggregates gave the ops' hardware time. */
  readonly trace: GateSourceDocument;
  /** The cost analysis whose `bytes accessed` is the cost model's figure, when the capture has one. */
  readonly cost?: GateSourceDocument & { readonly field: 'bytes accessed' };
  /** The copy bandwidth the capture measured beside the trace (its provenance). */
  readonly bandwidth: MeasuredBandwidth;
  /** Runs the trace covers: the capture request's `options.repeats`. */
  readonly runs: number;
}

/** One spill candidate of the group's optimized HLO, with its hardware time per run when the trace has its ops. */
export interface GateCandidate {
  readonly name: string;
  readonly type: string;
  readonly bytes: number;
  readonly estimateBytes: number;
  /** µs per run of the ops that write and read it; null when the trace lacks one of them. */
  readonly measuredUs: number | null;
}

export interface GateReport {
  readonly captureId: string;
  readonly gate: GateResult;
  readonly sources: GateSources;
  /** The group's spill candidates by traffic (at most 100), for a picker. */
  readonly candidates: readonly GateCandidate[];
  /** The platform the capture ran on (`cpu`, `gpu`, `tpu`), when the provenance says. */
  readonly platform?: string;
}

/** Why a capture group gives no gate: a piece is missing, or the gate itself refused (`GateError` codes). */
export type GateUnavailableReason =
  | 'no-hlo-opt' | 'no-analysis' | 'no-trace' | 'no-bandwidth'
  | 'bad-input' | 'bad-bandwidth' | 'no-candidate' | 'unknown-candidate' | 'op-not-in-trace' | 'ambiguous-op';

/** The body of a refused gate request (409), and a gate the export could not compute. */
export interface GateUnavailable {
  readonly captureId: string;
  readonly reason: GateUnavailableReason;
  readonly message: string;
}
