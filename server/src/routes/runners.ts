import { Hono, type Context } from 'hono';
import type { Role } from '@seam/shared/model';
import type { ResultBody } from '@seam/shared/protocol';
import { ApiError, ErrorCode, badRequest, notFound } from '../errors';
import { leasedTo, type CaptureService } from '../jobs/service';
import { toCaptureEntry } from '../jobs/queue';
import { bearer } from '../jobs/runner-auth';
import { validResultBody } from '../jobs/result-body';
import { limitBody, readJson } from './validate';

/** What the runner routes need from the rest of the server. */
export interface RunnerRouteDeps {
  readonly jobs: CaptureService;
  /** As for the capture routes: the role a room token grants, or the server's ApiError. */
  roleOf(c: Context, roomId: string): Promise<Role>;
  /** Largest result body a runner may post; default 256 MiB. */
  readonly maxResultBytes?: number;
}

/**
 * `GET /api/rooms/:id/runners` lists the runners connected (to any instance, in scaled mode) and their devices for room members;
 * `POST /api/runner/jobs/:jobId/attempts/:attempt/result` takes a runner's result (runner token),
 * applied exactly once per job however often it is posted; a token the job is not leased to gets
 * `wrong_runner` (403).
 */
export function runnerRoutes(deps: RunnerRouteDeps): Hono {
  const app = new Hono();

  app.get('/api/rooms/:id/runners', async (c) => {
    await deps.roleOf(c, c.req.param('id'));
    return c.json({ runners: await deps.jobs.runners() });
  });

  app.post(
    '/api/runner/jobs/:jobId/attempts/:attempt/result',
    limitBody(deps.maxResultBytes ?? 256 * 1024 * 1024, 'the result is larger than the server accepts'),
    async (c) => {
      const token = await deps.jobs.tokens.verify(bearer(c.req.header('authorization')) ?? '');
      if (!token) throw new ApiError(ErrorCode.unauthorized, 'a valid runner token is required');
      const attempt = Number(c.req.param('attempt'));
      if (!Number.isInteger(attempt) || attempt < 1) throw badRequest('attempt must be a positive integer');
      const job = await deps.jobs.queue.get(c.req.param('jobId'));
      if (!job) throw notFound('no such capture job');
      if (!leasedTo(job, token)) throw new ApiError(ErrorCode.wrongRunner, 'this capture job is not leased to this runner token');
      const body: ResultBody | string = validResultBody(await readJson(c, 'the body must be JSON'));
      if (typeof body === 'string') throw badRequest(body);
      const outcome = await deps.jobs.postResult(token, job.id, attempt, body);
      if (!outcome) throw notFound('no such capture job');
      return c.json({ applied: outcome.applied, job: toCaptureEntry(outcome.job) });
    },
  );

  return app;
}
