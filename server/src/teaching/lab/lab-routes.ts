import { Hono } from 'hono';
import { z } from 'zod';
import { ROLES, Role } from '@seam/shared/model';
import { labViewOf, writeLab, type Lab } from '@seam/shared/teaching';
import type { AppDeps } from '../../app';
import { authorize } from '../../auth/require';
import { badRequest, notFound } from '../../errors';
import { limitBody, validate } from '../../routes/validate';
import { loadLabs, type LabCatalog } from './lab-catalog';
import { LabEvaluator, type LabEvaluatorOptions } from './lab-evaluator';

const LabId = z.string().min(1).max(64);
const OpenLabBody = z.strictObject({ lab: LabId });

/** The body of `req` as text, or undefined when it has none or is longer than `max` bytes (reading stops there). */
async function boundedText(req: Request, max: number): Promise<string | undefined> {
  if (!req.body) return undefined;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      // Not cancelled: cancelling one branch of a tee waits for the other, which the room route reads.
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface LabRouteOptions extends LabEvaluatorOptions {
  /** The labs offered; read from the repository's `labs/` folder when absent. */
  readonly catalog?: LabCatalog;
}

/**
 * Labs (docs/labs.md): `GET /labs` lists them; `POST /rooms` with `lab` creates a room opened from
 * it; `POST /rooms/:id/lab` (owner) opens one in a room, its programs into `programs` and its steps
 * into the server-written `lab` key; `POST /rooms/:id/lab/check` (any member) evaluates the steps
 * now. Mounted under `/api`, before the room routes: the creation itself is theirs.
 */
export function labRoutes(deps: AppDeps, options: LabRouteOptions = {}): Hono {
  const { rooms } = deps;
  const catalog = options.catalog ?? loadLabs();
  const evaluator = new LabEvaluator(deps, catalog, options);
  const app = new Hono();
  const limit = limitBody(deps.config.limits.requestBytes, 'request body too large');

  app.get('/labs', (c) => c.json({
    labs: catalog.list().map((l) => {
      const v = labViewOf(l);
      return { id: v.id, code: v.code, title: v.title, summary: v.summary, steps: v.steps };
    }),
  }));

  const openIn = async (roomId: string, lab: Lab) => {
    await (await rooms.load(roomId)).transact((doc) => writeLab(doc, lab));
    evaluator.watch(roomId);
    return evaluator.schedule(roomId);
  };

  // `POST /rooms {title, lab}`: an unknown lab is refused before any room is made; the room
  // routes create the room (who may, quotas, the body's title), then the lab is opened in it.
  app.post('/rooms', async (c, next) => {
    // A copy of the body is read, at most the request limit, so that the room route reads (and
    // limits, and refuses) the request itself; a body over the limit or not JSON is its to refuse.
    const text = await boundedText(c.req.raw.clone(), deps.config.limits.requestBytes);
    let body: unknown;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      return next();
    }
    const raw = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['lab'] : undefined;
    if (raw === undefined) return next();
    const id = LabId.safeParse(raw);
    if (!id.success) throw badRequest('lab: must be a lab id');
    const lab = catalog.get(id.data);
    if (!lab) throw notFound(`no lab ${id.data}`);
    await next();
    if (c.res.status !== 201) return;
    const created = (await c.res.clone().json()) as { id: string };
    const results = await openIn(created.id, lab);
    c.res = new Response(JSON.stringify({ ...created, lab: labViewOf(lab), results }), { status: 201, headers: { 'content-type': 'application/json' } });
  });

  // A member opening the room (the web app reads `GET /rooms/:id` first, whichever panel it shows)
  // resumes its lab: after a restart the room's results follow its changes again from here on.
  app.get('/rooms/:id', async (c, next) => {
    await next();
    if (c.res.status === 200) evaluator.resume(c.req.param('id'));
  });

  app.post('/rooms/:id/lab', limit, validate('json', OpenLabBody), async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, [Role.owner]);
    const lab = catalog.get(c.req.valid('json').lab);
    if (!lab) throw notFound(`no lab ${c.req.valid('json').lab}`);
    const results = await openIn(roomId, lab);
    return c.json({ lab: labViewOf(lab), results }, 201);
  });

  app.post('/rooms/:id/lab/check', async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, ROLES);
    await rooms.load(roomId);
    evaluator.watch(roomId);
    const results = await evaluator.schedule(roomId);
    if (!results) throw notFound('this room has no lab');
    return c.json({ results });
  });

  return app;
}
