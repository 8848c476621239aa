import type { CaptureEntry, CaptureRequestInput, CarriedCounts } from '@seam/shared/model';

/**
 * The request of "Run again" on a capture card: the program as it now reads in the room, with the
 * capture's entry, argument specs, layers, runner and options, naming the capture it re-runs; or
 * what is wrong (an empty program).
 */
export function rerunRequest(job: CaptureEntry, program: string): { request: CaptureRequestInput } | { error: string } {
  if (!program.trim()) return { error: 'The program is empty.' };
  return {
    request: {
      program, entry: job.entry, args: job.args.map((a) => ({ shape: [...a.shape], dtype: a.dtype })), capture: [...job.capture],
      ...(job.runner !== undefined ? { runner: job.runner } : {}),
      ...(job.options !== undefined ? { options: { ...job.options } } : {}),
      previous: job.id,
    },
  };
}

/** `v2 of mlp` for a re-run; `null` for a first capture. */
export function versionLabel(job: Pick<CaptureEntry, 'version' | 'versionOf' | 'entry'>): string | null {
  return job.version !== undefined && job.versionOf !== undefined ? `v${job.version} of ${job.entry}` : null;
}

/** `3 annotations carried, 1 detached` (and how many were over the limit, when some were). */
export function carriedLabel(c: CarriedCounts): string {
  const n = `${c.annotations} annotation${c.annotations === 1 ? '' : 's'} carried, ${c.detached} detached`;
  return c.notCarried > 0 ? `${n}, ${c.notCarried} not carried` : n;
}
