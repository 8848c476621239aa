import { Hono, type Context } from 'hono';
import { CaptureRequestSchema, isFinalStatus, type CaptureRequest, type Role } from '@seam/shared/model';
import { ApiError, badRequest, ErrorCode, forbidden, issuesMessage, notFound } from '../errors';
import type { CaptureService } from '../jobs/service';
import { toCaptureEntry, type JobRecord } from '../jobs/queue';
import { limitBody, readJson } from './validate';

/** What the capture routes need from the rest of the server. */
export interface CaptureRouteDeps {
  readonly jobs: CaptureService;
  /** The role the request's room token grants in `roomId`; throws the server's ApiError when none. */
  roleOf(c: Context, roomId: string): Promise<Role>;
  /** The room setting `allowAnnotatorCapture` (false when unset). */
  allowAnnotatorCapture(roomId: string): Promise<boolean>;
  /** The server's lock check for REST writes: rejects with its `room_locked` error for a non-owner in a locked room. */
  assertUnlocked(roomId: string, role: Role): Promise<void>;
}

async function assertMayCapture(deps: CaptureRouteDeps, roomId: string, role: Role): Promise<void> {
  if (role === 'owner') return;
  if (role === 'annotator' && (await deps.allowAnnotatorCapture(roomId))) return deps.assertUnlocked(roomId, role);
  throw forbidden(role === 'viewer' ? 'viewers cannot request captures' : 'the owner has not allowed annotators to request captures');
}

async function jobOf(deps: CaptureRouteDeps, roomId: string, jobId: string): Promise<JobRecord> {
  const job = await deps.jobs.queue.get(jobId);
  if (!job || job.roomId !== roomId) throw notFound(`no capture ${jobId} in this room`);
  return job;
}

/**
 * Checks the capture a "Run again" request re-runs: one of this room (another room's is as unknown
 * as a made-up id), finished, of the same entry function (the same program, edited).
 */
async function assertPrevious(deps: CaptureRouteDeps, roomId: string, request: CaptureRequest): Promise<void> {
  if (request.previous === undefined) return;
  const previous = await deps.jobs.queue.get(request.previous);
  if (!previous || previous.roomId !== roomId) throw notFound(`no capture ${request.previous} in this room to run again`);
  if (!isFinalStatus(previous.status)) throw new ApiError(ErrorCode.conflict, `capture ${previous.id} has not finished; it can be run again once it has`);
  if (previous.request.entry !== request.entry) {
    throw badRequest(`capture ${previous.id} ran ${previous.request.entry}; running it again runs the same program (entry ${previous.request.entry}, not ${request.entry})`);
  }
}

/**
 * `POST /api/rooms/:id/captures` (202 with the queued job), `GET …/captures` (the room's jobs),
 * `GET …/captures/:jobId` (status, documents, error) and `DELETE …/captures/:jobId` (cancel).
 * Owners may capture; annotators when the room allows it and is not locked; viewers never. A request
 * naming a `previous` capture ("Run again") makes a new version of it.
 */
export function captureRoutes(deps: CaptureRouteDeps): Hono {
  const app = new Hono();
  const role = (c: Context) => deps.roleOf(c, c.req.param('id') ?? '');

  // A request is at most a 256 K-character program plus specs; 2 MiB leaves room for JSON escapes.
  const limit = limitBody(2 * 1024 * 1024, 'the capture request is larger than 2 MiB');
  app.post('/api/rooms/:id/captures', limit, async (c) => {
    const roomId = c.req.param('id');
    const requestedBy = await role(c);
    await assertMayCapture(deps, roomId, requestedBy);
    const parsed = CaptureRequestSchema.safeParse(await readJson(c, 'the body must be JSON'));
    if (!parsed.success) throw badRequest(issuesMessage(parsed.error));
    await assertPrevious(deps, roomId, parsed.data);
    const job = await deps.jobs.request(roomId, parsed.data, requestedBy);
    return c.json({ job: toCaptureEntry(job) }, 202);
  });

  app.get('/api/rooms/:id/captures', async (c) => {
    await role(c);
    return c.json({ jobs: (await deps.jobs.queue.listRoom(c.req.param('id'))).map(toCaptureEntry) });
  });

  app.get('/api/rooms/:id/captures/:jobId', async (c) => {
    await role(c);
    return c.json({ job: toCaptureEntry(await jobOf(deps, c.req.param('id'), c.req.param('jobId'))) });
  });

  app.delete('/api/rooms/:id/captures/:jobId', async (c) => {
    const roomId = c.req.param('id');
    await assertMayCapture(deps, roomId, await role(c));
    const job = await jobOf(deps, roomId, c.req.param('jobId'));
    if (isFinalStatus(job.status)) return c.json({ job: toCaptureEntry(job) });
    const after = (await deps.jobs.cancel(job.id)) ?? (await jobOf(deps, roomId, job.id));
    return c.json({ job: toCaptureEntry(after) });
  });

  return app;
}
