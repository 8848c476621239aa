import type { DocumentMeta } from '@seam/shared/model';

/** `HloModule jit_attention, is_scheduled=true, …` → `jit_attention`. */
export function hloModuleName(text: string): string | null {
  return /^\s*HloModule\s+([^\s,]+)/.exec(text)?.[1] ?? null;
}

/**
 * The optimized HLO a trace's ops link to: the `hlo-opt` document of the trace's capture; for a
 * trace with no capture, the room's optimized HLO candidates (whose module name the caller checks
 * against the trace's `hlo_module`, see {@link hloModuleName}), newest first.
 */
export function hloCandidates(trace: DocumentMeta, docs: readonly DocumentMeta[]): DocumentMeta[] {
  const opt = docs.filter((d) => d.kind === 'hlo-opt');
  if (trace.captureId) {
    const own = opt.filter((d) => d.captureId === trace.captureId);
    if (own.length > 0) return own;
  }
  return [...opt].sort((a, b) => b.createdAt - a.createdAt);
}
