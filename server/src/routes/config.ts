import { Hono } from 'hono';
import type { AppDeps } from '../app';

/** `GET /api/config`: what the web app must know before it asks anything, e.g. whether creating a room needs an invitation. */
export function configRoutes(deps: Pick<AppDeps, 'config'>): Hono {
  const app = new Hono();
  app.get('/', (c) => c.json({ roomCreation: deps.config.roomCreation }));
  return app;
}
