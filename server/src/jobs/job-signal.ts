/**
 * What one instance tells the others about the capture queue, so that a runner connected to any
 * instance is offered a job asked on another at once (the service's periodic tick is the fallback
 * when a notice is lost): `queued` when a job was enqueued or requeued, `cancel` when a running
 * attempt was cancelled (the instance holding its runner's socket tells the runner to stop).
 */
export type JobNotice =
  | { readonly kind: 'queued' }
  | { readonly kind: 'cancel'; readonly jobId: string; readonly attempt: number; readonly runnerId: string };

/** A channel of notices between the instances sharing one job queue; embedded mode has none. */
export interface JobSignal {
  /** Sends a notice to every instance listening, this one included. */
  notify(notice: JobNotice): Promise<void>;
  /** Calls `on` for each notice received; set once, by the capture service. */
  listen(on: (notice: JobNotice) => void): void;
  close(): Promise<void>;
}

/** Largest notice payload read; a longer one is not Seam's. */
const MAX_NOTICE = 512;

/** Writes a notice as the channel's payload (JSON). */
export function writeJobNotice(notice: JobNotice): string {
  return JSON.stringify(notice);
}

/** Reads a channel payload; null for anything that is not a well-formed notice (another writer's, truncated, hostile). */
export function readJobNotice(payload: string | undefined): JobNotice | null {
  if (payload === undefined || payload.length > MAX_NOTICE) return null;
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (o.kind === 'queued') return { kind: 'queued' };
  if (o.kind === 'cancel' && typeof o.jobId === 'string' && typeof o.runnerId === 'string' && Number.isSafeInteger(o.attempt) && (o.attempt as number) > 0) {
    return { kind: 'cancel', jobId: o.jobId, attempt: o.attempt as number, runnerId: o.runnerId };
  }
  return null;
}
