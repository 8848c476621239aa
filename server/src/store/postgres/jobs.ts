import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { fromRow, type JobRecord, type JobRow } from '../../jobs/queue';
import type { JobLeases } from '../shared-store';
import { query, transaction, type Queryable } from './pool';

/**
 * The capture job queue in PostgreSQL (table `capture_jobs`), with the SQLite queue's
 * transitions (`server/src/jobs/queue.ts`). A lease takes the oldest eligible job with
 * `FOR UPDATE SKIP LOCKED`, so that instances leasing at once each get a different job without
 * waiting on one another; every other transition is one conditional UPDATE naming the attempt.
 */
export function postgresJobs(pool: pg.Pool, now: () => number = Date.now): JobLeases {
  const one = async (db: Queryable, operation: string, id: string): Promise<JobRecord | null> => {
    const r = (await query<JobRow>(db, operation, 'SELECT * FROM capture_jobs WHERE id = $1', [id])).rows[0];
    return r ? fromRow(r) : null;
  };
  const mustGet = async (db: Queryable, operation: string, id: string): Promise<JobRecord> => {
    const job = await one(db, operation, id);
    if (!job) throw new Error(`capture job ${id} vanished`);
    return job;
  };
  const failJob = async (db: Queryable, jobId: string, error: unknown, provenance: unknown): Promise<JobRecord> => {
    await query(db, 'jobs.fail', `UPDATE capture_jobs SET status = 'failed', phase = NULL, lease_expires_at = NULL, error = $1,
      provenance = COALESCE($2, provenance), updated_at = $3 WHERE id = $4 AND status IN ('queued', 'running')`,
    [JSON.stringify(error), provenance === undefined ? null : JSON.stringify(provenance), now(), jobId]);
    return mustGet(db, 'jobs.fail', jobId);
  };
  return {
    enqueue: async (roomId, request, requestedBy, maxAttempts) => {
      const id = 'cap_' + randomBytes(12).toString('base64url');
      const t = now();
      // A request naming an earlier capture of the same room re-runs it as its next version.
      const previousId = (request as { previous?: unknown }).previous;
      const previous = typeof previousId === 'string'
        ? (await query<{ id: string; version: number | null }>(pool, 'jobs.enqueue', 'SELECT id, version FROM capture_jobs WHERE id = $1 AND room_id = $2', [previousId, roomId])).rows[0]
        : undefined;
      await query(pool, 'jobs.enqueue', `INSERT INTO capture_jobs (id, room_id, request, requested_by, wanted_runner, status, max_attempts, version_of, version, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10)`,
      [id, roomId, JSON.stringify(request), requestedBy, request.runner ?? null, maxAttempts, previous?.id ?? null, previous ? (previous.version ?? 1) + 1 : null, t, t]);
      return mustGet(pool, 'jobs.enqueue', id);
    },
    get: (id) => one(pool, 'jobs.get', id),
    listRoom: async (roomId) =>
      (await query<JobRow>(pool, 'jobs.listRoom', 'SELECT * FROM capture_jobs WHERE room_id = $1 ORDER BY created_at, id', [roomId])).rows.map(fromRow),
    heldBy: async (runnerId) =>
      (await query<JobRow>(pool, 'jobs.heldBy', "SELECT * FROM capture_jobs WHERE runner_id = $1 AND status = 'running'", [runnerId])).rows.map(fromRow),
    lease: async (runnerId, runnerName, leaseMs) => {
      const t = now();
      const r = (await query<JobRow>(pool, 'jobs.lease', `UPDATE capture_jobs SET status = 'running', attempt = attempt + 1, runner_id = $1, runner_name = $2,
        lease_expires_at = $3, requeued_at = NULL, phase = 'leased', updated_at = $4
        WHERE id = (SELECT id FROM capture_jobs WHERE status = 'queued' AND (wanted_runner IS NULL OR wanted_runner = $2)
          ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`, [runnerId, runnerName, t + leaseMs, t])).rows[0];
      return r ? fromRow(r) : null;
    },
    renew: async (runnerId, jobId, attempt, leaseMs) =>
      (await query(pool, 'jobs.renew', `UPDATE capture_jobs SET lease_expires_at = $1 WHERE id = $2 AND attempt = $3 AND runner_id = $4 AND status = 'running'`,
        [now() + leaseMs, jobId, attempt, runnerId])).rowCount === 1,
    setPhase: async (runnerId, jobId, attempt, phase) => {
      const r = (await query<JobRow>(pool, 'jobs.setPhase', `UPDATE capture_jobs SET phase = $1, updated_at = $2
        WHERE id = $3 AND attempt = $4 AND runner_id = $5 AND status = 'running' RETURNING *`, [phase, now(), jobId, attempt, runnerId])).rows[0];
      return r ? fromRow(r) : null;
    },
    cancel: (jobId) => transaction(pool, 'jobs.cancel', async (c) => {
      const before = (await c.query<JobRow>('SELECT * FROM capture_jobs WHERE id = $1 FOR UPDATE', [jobId])).rows[0];
      if (!before) return null;
      const changed = (await c.query(`UPDATE capture_jobs SET status = 'cancelled', phase = NULL, lease_expires_at = NULL, updated_at = $1
        WHERE id = $2 AND status IN ('queued', 'running') AND result_attempt IS NULL`, [now(), jobId])).rowCount === 1;
      return changed ? fromRow(before) : null;
    }),
    claimResult: async (jobId, attempt) =>
      (await query(pool, 'jobs.claimResult', `UPDATE capture_jobs SET result_attempt = $1, phase = 'ingesting', updated_at = $2
        WHERE id = $3 AND attempt = $1 AND status = 'running' AND result_attempt IS NULL`, [attempt, now(), jobId])).rowCount === 1,
    complete: async (jobId, documents, provenance, analyses) => {
      await query(pool, 'jobs.complete', `UPDATE capture_jobs SET status = 'done', phase = NULL, lease_expires_at = NULL, documents = $1, provenance = $2,
        analyses = $3, updated_at = $4 WHERE id = $5`,
      [JSON.stringify(documents), JSON.stringify(provenance), analyses === null ? null : JSON.stringify(analyses), now(), jobId]);
      return mustGet(pool, 'jobs.complete', jobId);
    },
    fail: (jobId, error, provenance) => failJob(pool, jobId, error, provenance),
    setCarried: async (jobId, carried) => {
      await query(pool, 'jobs.setCarried', 'UPDATE capture_jobs SET carried = $1 WHERE id = $2', [JSON.stringify(carried), jobId]);
    },
    sweep: (retryWaitMs) => transaction(pool, 'jobs.sweep', async (c) => {
      const t = now();
      const requeued: JobRecord[] = [];
      const failed: JobRecord[] = [];
      // SKIP LOCKED: a job another instance is sweeping or claiming right now is left to it.
      const expired = (await c.query<JobRow>(`SELECT * FROM capture_jobs WHERE status = 'running' AND result_attempt IS NULL AND lease_expires_at < $1
        ORDER BY created_at, id FOR UPDATE SKIP LOCKED`, [t])).rows.map(fromRow);
      for (const job of expired) {
        const lost = `runner "${job.runnerName ?? '?'}" stopped responding (lease expired) during attempt ${job.attempt} of ${job.maxAttempts}`;
        if (job.attempt < job.maxAttempts) {
          await c.query(`UPDATE capture_jobs SET status = 'queued', runner_id = NULL, lease_expires_at = NULL, requeued_at = $1,
            phase = $2, updated_at = $1 WHERE id = $3`, [t, `${lost}; waiting for another runner`, job.id]);
          requeued.push(await mustGet(c, 'jobs.sweep', job.id));
        } else {
          failed.push(await failJob(c, job.id, { reason: 'runner-lost', message: `${lost}; no attempts left` }, undefined));
        }
      }
      const stranded = (await c.query<JobRow>(`SELECT * FROM capture_jobs WHERE status = 'queued' AND requeued_at IS NOT NULL AND requeued_at < $1
        ORDER BY created_at, id FOR UPDATE SKIP LOCKED`, [t - retryWaitMs])).rows.map(fromRow);
      for (const job of stranded) {
        failed.push(await failJob(c, job.id, {
          reason: 'runner-lost',
          message: `runner "${job.runnerName ?? '?'}" stopped responding (lease expired) during attempt ${job.attempt}, and no other runner took the job within ${Math.round(retryWaitMs / 1000)} s`,
        }, undefined));
      }
      return { requeued, failed };
    }),
  };
}
