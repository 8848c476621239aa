import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { CaptureEntry, CaptureError, CaptureProvenance, CaptureRequest, CarriedCounts, JobStatus } from '@seam/shared/model';
import { migrateJobs } from './schema';

/** A capture job as the queue stores it. */
export interface JobRecord {
  readonly id: string;
  readonly roomId: string;
  readonly request: CaptureRequest;
  readonly requestedBy: string;
  readonly status: JobStatus;
  /** How many leases the job has had; the current attempt's number once running. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly runnerId: string | null;
  readonly runnerName: string | null;
  readonly leaseExpiresAt: number | null;
  readonly phase: string | null;
  readonly resultAttempt: number | null;
  readonly documents: readonly string[];
  readonly analyses: Record<string, unknown> | null;
  readonly provenance: CaptureProvenance | null;
  readonly error: CaptureError | null;
  /** The capture this one re-runs ("Run again"), with this one's version number; null for a first capture. */
  readonly versionOf: string | null;
  readonly version: number | null;
  /** What carrying the previous version's annotations over did, once it has run. */
  readonly carried: CarriedCounts | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A `capture_jobs` row as the driver returns it (SQLite, or PostgreSQL with `bigint` read as a number). */
export interface JobRow {
  id: string; room_id: string; request: string; requested_by: string; status: string; attempt: number;
  max_attempts: number; runner_id: string | null; runner_name: string | null; lease_expires_at: number | null;
  phase: string | null; result_attempt: number | null; documents: string; analyses: string | null;
  provenance: string | null; error: string | null; version_of: string | null; version: number | null; carried: string | null;
  created_at: number; updated_at: number;
}

/** The job a `capture_jobs` row holds. */
export function fromRow(r: JobRow): JobRecord {
  return {
    id: r.id, roomId: r.room_id, request: JSON.parse(r.request) as CaptureRequest, requestedBy: r.requested_by,
    status: r.status as JobStatus, attempt: r.attempt, maxAttempts: r.max_attempts, runnerId: r.runner_id,
    runnerName: r.runner_name, leaseExpiresAt: r.lease_expires_at, phase: r.phase, resultAttempt: r.result_attempt,
    documents: JSON.parse(r.documents) as string[],
    analyses: r.analyses === null ? null : (JSON.parse(r.analyses) as Record<string, unknown>),
    provenance: r.provenance === null ? null : (JSON.parse(r.provenance) as CaptureProvenance),
    error: r.error === null ? null : (JSON.parse(r.error) as CaptureError),
    versionOf: r.version_of, version: r.version, carried: r.carried === null ? null : (JSON.parse(r.carried) as CarriedCounts),
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** The room document's view of a job (`captures` map value). */
export function toCaptureEntry(job: JobRecord): CaptureEntry {
  const { request } = job;
  return {
    id: job.id, status: job.status, attempt: job.attempt, entry: request.entry, args: request.args,
    capture: request.capture, requestedBy: job.requestedBy, createdAt: job.createdAt, updatedAt: job.updatedAt,
    documents: job.documents,
    ...(request.runner !== undefined ? { runner: request.runner } : {}),
    ...(job.status === 'running' && job.runnerName !== null ? { runningOn: job.runnerName } : {}),
    ...(job.phase !== null ? { phase: job.phase } : {}),
    ...(job.provenance !== null ? { provenance: job.provenance } : {}),
    ...(job.analyses !== null ? { analyses: job.analyses } : {}),
    ...(job.error !== null ? { error: job.error } : {}),
    options: request.options,
    ...(job.versionOf !== null && job.version !== null ? { versionOf: job.versionOf, version: job.version } : {}),
    ...(job.carried !== null ? { carried: job.carried } : {}),
  };
}

/** What a lease sweep changed: jobs put back in the queue, and jobs failed for good. */
export interface SweepOutcome {
  readonly requeued: JobRecord[];
  readonly failed: JobRecord[];
}

/**
 * The capture job queue in SQLite. Every transition is one conditional UPDATE, so two runners can
 * never hold the same attempt and a result is claimed by exactly one post.
 */
export class JobQueue {
  constructor(private readonly db: Database.Database, private readonly now: () => number = Date.now) {
    migrateJobs(db);
  }

  /**
   * Adds a queued job; `maxAttempts` bounds how many runners it is leased to before it fails. A
   * request naming a `previous` capture becomes its next version (`previous` is checked by the caller).
   */
  enqueue(roomId: string, request: CaptureRequest, requestedBy: string, maxAttempts: number): JobRecord {
    const id = 'cap_' + randomBytes(12).toString('base64url');
    const t = this.now();
    const found = request.previous === undefined ? null : this.get(request.previous);
    const previous = found?.roomId === roomId ? found : null;
    const version = previous ? (previous.version ?? 1) + 1 : null;
    this.db.prepare(`INSERT INTO capture_jobs (id, room_id, request, requested_by, wanted_runner, status, max_attempts, version_of, version, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`)
      .run(id, roomId, JSON.stringify(request), requestedBy, request.runner ?? null, maxAttempts, previous?.id ?? null, version, t, t);
    return this.mustGet(id);
  }

  /** Records what carrying a re-run's annotations over did. */
  setCarried(jobId: string, carried: CarriedCounts): void {
    this.db.prepare('UPDATE capture_jobs SET carried = ? WHERE id = ?').run(JSON.stringify(carried), jobId);
  }

  /** The job with this id, or null. */
  get(id: string): JobRecord | null {
    const r = this.db.prepare('SELECT * FROM capture_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return r ? fromRow(r) : null;
  }

  /** A room's jobs, oldest first. */
  listRoom(roomId: string): JobRecord[] {
    return (this.db.prepare('SELECT * FROM capture_jobs WHERE room_id = ? ORDER BY created_at, id').all(roomId) as JobRow[]).map(fromRow);
  }

  /** Jobs a runner holds right now. */
  heldBy(runnerId: string): JobRecord[] {
    return (this.db.prepare("SELECT * FROM capture_jobs WHERE runner_id = ? AND status = 'running'").all(runnerId) as JobRow[]).map(fromRow);
  }

  private mustGet(id: string): JobRecord {
    const job = this.get(id);
    if (!job) throw new Error(`capture job ${id} vanished`);
    return job;
  }

  /** Leases the oldest queued job this runner may take (untargeted, or targeted at its name); null when none. */
  lease(runnerId: string, runnerName: string, leaseMs: number): JobRecord | null {
    const t = this.now();
    const take = this.db.transaction((): string | null => {
      const row = this.db.prepare(`SELECT id FROM capture_jobs WHERE status = 'queued' AND (wanted_runner IS NULL OR wanted_runner = ?)
        ORDER BY created_at, id LIMIT 1`).get(runnerName) as { id: string } | undefined;
      if (!row) return null;
      this.db.prepare(`UPDATE capture_jobs SET status = 'running', attempt = attempt + 1, runner_id = ?, runner_name = ?,
        lease_expires_at = ?, requeued_at = NULL, phase = 'leased', updated_at = ? WHERE id = ? AND status = 'queued'`)
        .run(runnerId, runnerName, t + leaseMs, t, row.id);
      return row.id;
    });
    const id = take.immediate();
    return id === null ? null : this.mustGet(id);
  }

  /** Renews the lease of one attempt held by `runnerId`; false when the runner no longer holds it. */
  renew(runnerId: string, jobId: string, attempt: number, leaseMs: number): boolean {
    return this.db.prepare(`UPDATE capture_jobs SET lease_expires_at = ? WHERE id = ? AND attempt = ? AND runner_id = ? AND status = 'running'`)
      .run(this.now() + leaseMs, jobId, attempt, runnerId).changes === 1;
  }

  /** Records a progress line of a running attempt; null when the attempt is not the current one. */
  setPhase(runnerId: string, jobId: string, attempt: number, phase: string): JobRecord | null {
    const changed = this.db.prepare(`UPDATE capture_jobs SET phase = ?, updated_at = ? WHERE id = ? AND attempt = ? AND runner_id = ? AND status = 'running'`)
      .run(phase, this.now(), jobId, attempt, runnerId).changes === 1;
    return changed ? this.mustGet(jobId) : null;
  }

  /** Cancels a queued or running job; returns the job as it was before, or null when it was already final. */
  cancel(jobId: string): JobRecord | null {
    const before = this.get(jobId);
    if (!before) return null;
    const changed = this.db.prepare(`UPDATE capture_jobs SET status = 'cancelled', phase = NULL, lease_expires_at = NULL, updated_at = ?
      WHERE id = ? AND status IN ('queued', 'running') AND result_attempt IS NULL`).run(this.now(), jobId).changes === 1;
    return changed ? before : null;
  }

  /**
   * Claims the right to apply the result of `attempt`: true for exactly one caller, and only while
   * that attempt is the running one. The claim also stops the lease sweep from taking the job away.
   */
  claimResult(jobId: string, attempt: number): boolean {
    return this.db.prepare(`UPDATE capture_jobs SET result_attempt = ?, phase = 'ingesting', updated_at = ?
      WHERE id = ? AND attempt = ? AND status = 'running' AND result_attempt IS NULL`).run(attempt, this.now(), jobId, attempt).changes === 1;
  }

  /** Finishes a claimed job as done with its documents and analyses. */
  complete(jobId: string, documents: readonly string[], provenance: CaptureProvenance, analyses: Record<string, unknown> | null): JobRecord {
    this.db.prepare(`UPDATE capture_jobs SET status = 'done', phase = NULL, lease_expires_at = NULL, documents = ?, provenance = ?,
      analyses = ?, updated_at = ? WHERE id = ?`)
      .run(JSON.stringify(documents), JSON.stringify(provenance), analyses === null ? null : JSON.stringify(analyses), this.now(), jobId);
    return this.mustGet(jobId);
  }

  /** Fails a job for good with `error` (unless it is already final). */
  fail(jobId: string, error: CaptureError, provenance?: CaptureProvenance): JobRecord {
    this.db.prepare(`UPDATE capture_jobs SET status = 'failed', phase = NULL, lease_expires_at = NULL, error = ?,
      provenance = COALESCE(?, provenance), updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`)
      .run(JSON.stringify(error), provenance ? JSON.stringify(provenance) : null, this.now(), jobId);
    return this.mustGet(jobId);
  }

  /**
   * Takes jobs away from runners whose lease expired: requeued while attempts remain, else failed
   * with the reason. A requeued job that no runner takes within `retryWaitMs` fails too.
   */
  sweep(retryWaitMs: number): SweepOutcome {
    const t = this.now();
    const requeued: JobRecord[] = [];
    const failed: JobRecord[] = [];
    const run = this.db.transaction(() => {
      const expired = this.db.prepare(`SELECT * FROM capture_jobs WHERE status = 'running' AND result_attempt IS NULL AND lease_expires_at < ?`)
        .all(t) as JobRow[];
      for (const row of expired) {
        const job = fromRow(row);
        const lost = `runner "${job.runnerName ?? '?'}" stopped responding (lease expired) during attempt ${job.attempt} of ${job.maxAttempts}`;
        if (job.attempt < job.maxAttempts) {
          this.db.prepare(`UPDATE capture_jobs SET status = 'queued', runner_id = NULL, lease_expires_at = NULL, requeued_at = ?,
            phase = ?, updated_at = ? WHERE id = ?`).run(t, `${lost}; waiting for another runner`, t, job.id);
          requeued.push(this.mustGet(job.id));
        } else {
          this.fail(job.id, { reason: 'runner-lost', message: `${lost}; no attempts left` });
          failed.push(this.mustGet(job.id));
        }
      }
      const stranded = this.db.prepare(`SELECT * FROM capture_jobs WHERE status = 'queued' AND requeued_at IS NOT NULL AND requeued_at < ?`)
        .all(t - retryWaitMs) as JobRow[];
      for (const row of stranded) {
        const job = fromRow(row);
        this.fail(job.id, {
          reason: 'runner-lost',
          message: `runner "${job.runnerName ?? '?'}" stopped responding (lease expired) during attempt ${job.attempt}, and no other runner took the job within ${Math.round(retryWaitMs / 1000)} s`,
        });
        failed.push(this.mustGet(job.id));
      }
    });
    run.immediate();
    return { requeued, failed };
  }
}
