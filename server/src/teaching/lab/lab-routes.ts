import { Hono } from 'hono';
import * as Y from 'yjs';
import { z } from 'zod';
import { ROLES, Role, RoomKey } from '@seam/shared/model';
import { labViewOf, writeLab } from '@seam/shared/teaching';
import type { AppDeps } from '../../app';
import { requireRole } from '../../auth/require';
import { notFound } from '../../errors';
import { limitBody, validate } from '../../routes/validate';
import { loadLabs, type LabCatalog } from './lab-catalog';
import { LabEvaluator, type LabEvaluatorOptions } from './lab-evaluator';

const OpenLabBody = z.strictObject({ lab: z.string().min(1).max(64) });

export interface LabRouteOptions extends LabEvaluatorOptions {
  /** The labs offered; read from the repository's `labs/` folder when absent. */
  readonly catalog?: LabCatalog;
}

/**
 * Labs (docs/labs.md): `GET /labs` lists them; `POST /rooms/:id/lab` (owner) opens one in a room,
 * its programs into `programs` and its steps into the server-written `lab` key; `POST
 * /rooms/:id/lab/check` (any member) evaluates the steps now. Mounted under `/api`.
 */
export function labRoutes(deps: AppDeps, options: LabRouteOptions = {}): Hono {
  const { store, rooms } = deps;
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

  app.post('/rooms/:id/lab', limit, validate('json', OpenLabBody), async (c) => {
    const roomId = c.req.param('id');
    requireRole(c, store, roomId, [Role.owner]);
    const lab = catalog.get(c.req.valid('json').lab);
    if (!lab) throw notFound(`no lab ${c.req.valid('json').lab}`);
    rooms.get(roomId).transact((doc) => writeLab(doc, lab, doc.getMap<Y.Text>(RoomKey.programs), (s) => new Y.Text(s)));
    evaluator.watch(roomId);
    const results = await evaluator.schedule(roomId);
    return c.json({ lab: labViewOf(lab), results }, 201);
  });

  app.post('/rooms/:id/lab/check', async (c) => {
    const roomId = c.req.param('id');
    requireRole(c, store, roomId, ROLES);
    evaluator.watch(roomId);
    const results = await evaluator.schedule(roomId);
    if (!results) throw notFound('this room has no lab');
    return c.json({ results });
  });

  return app;
}
