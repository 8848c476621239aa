import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CaptureRequestSchema } from '@seam/shared/model';
import { JobQueue } from './queue';

const request = (runner?: string) => CaptureRequestSchema.parse({ program: 'def f():\n    return 1\n', entry: 'f', args: [], ...(runner ? { runner } : {}) });

describe('JobQueue on SQLite', () => {
  let dir: string;
  let db: Database.Database;
  let t: number;
  let q: JobQueue;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-queue-'));
    db = new Database(join(dir, 'seam.db'));
    db.pragma('journal_mode = WAL');
    t = 1_000;
    q = new JobQueue(db, () => t);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leases the oldest job first and never the same attempt twice', () => {
    const a = q.enqueue('r', request(), 'owner', 3);
    t += 1;
    const b = q.enqueue('r', request(), 'owner', 3);
    expect(q.lease('x', 'x', 1000)?.id).toBe(a.id);
    expect(q.lease('y', 'y', 1000)?.id).toBe(b.id);
    expect(q.lease('z', 'z', 1000)).toBeNull();
    expect(q.get(a.id)).toMatchObject({ status: 'running', attempt: 1, runnerId: 'x' });
  });

  it('gives a job aimed at a runner only to that runner', () => {
    const job = q.enqueue('r', request('tpu-1'), 'owner', 3);
    expect(q.lease('gpu', 'gpu-1', 1000)).toBeNull();
    expect(q.lease('tpu', 'tpu-1', 1000)?.id).toBe(job.id);
  });

  it('requeues a job whose lease expired while attempts remain, then fails it with the reason', () => {
    const job = q.enqueue('r', request(), 'owner', 2);
    q.lease('a', 'runner-a', 1000);
    t += 500;
    expect(q.renew('a', job.id, 1, 1000)).toBe(true);
    t += 900;
    expect(q.sweep(10_000)).toEqual({ requeued: [], failed: [] });
    t += 200;
    const first = q.sweep(10_000);
    expect(first.requeued.map((j) => j.id)).toEqual([job.id]);
    expect(q.get(job.id)?.phase).toMatch(/runner "runner-a" stopped responding/);
    expect(q.renew('a', job.id, 1, 1000)).toBe(false);

    q.lease('b', 'runner-b', 1000);
    t += 1001;
    const second = q.sweep(10_000);
    expect(second.failed.map((j) => j.id)).toEqual([job.id]);
    expect(q.get(job.id)).toMatchObject({ status: 'failed', attempt: 2, error: { reason: 'runner-lost' } });
    expect(q.get(job.id)?.error?.message).toMatch(/runner "runner-b" .* attempt 2 of 2; no attempts left/);
  });

  it('fails a requeued job that no runner takes within the retry wait', () => {
    const job = q.enqueue('r', request(), 'owner', 3);
    q.lease('a', 'gone', 100);
    t += 101;
    q.sweep(5_000);
    t += 4_999;
    expect(q.sweep(5_000).failed).toEqual([]);
    t += 2;
    expect(q.sweep(5_000).failed.map((j) => j.id)).toEqual([job.id]);
    expect(q.get(job.id)?.error?.message).toMatch(/no other runner took the job within 5 s/);
  });

  it('lets exactly one claim apply the result of the running attempt', () => {
    const job = q.enqueue('r', request(), 'owner', 3);
    q.lease('a', 'a', 1000);
    expect(q.claimResult(job.id, 2)).toBe(false);
    expect(q.claimResult(job.id, 1)).toBe(true);
    expect(q.claimResult(job.id, 1)).toBe(false);
    // A claimed job is not swept away while it is being ingested.
    t += 5_000;
    expect(q.sweep(1)).toEqual({ requeued: [], failed: [] });
    const done = q.complete(job.id, ['d1', 'd2'], { runner: 'a' }, { cost: { flops: 1 } });
    expect(done).toMatchObject({ status: 'done', documents: ['d1', 'd2'], resultAttempt: 1 });
  });

  it('cancels queued and running jobs once, and a cancelled job takes no result', () => {
    const queued = q.enqueue('r', request(), 'owner', 3);
    expect(q.cancel(queued.id)?.status).toBe('queued');
    expect(q.cancel(queued.id)).toBeNull();
    const running = q.enqueue('r', request(), 'owner', 3);
    q.lease('a', 'a', 1000);
    expect(q.cancel(running.id)?.status).toBe('running');
    expect(q.claimResult(running.id, 1)).toBe(false);
    expect(q.get(running.id)?.status).toBe('cancelled');
    expect(q.lease('a', 'a', 1000)).toBeNull();
  });

  it('keeps jobs across a reopen of the database', () => {
    const job = q.enqueue('room-1', request(), 'owner', 3);
    db.close();
    db = new Database(join(dir, 'seam.db'));
    const again = new JobQueue(db, () => t);
    expect(again.listRoom('room-1').map((j) => j.id)).toEqual([job.id]);
    expect(again.get(job.id)?.request.entry).toBe('f');
  });
});
