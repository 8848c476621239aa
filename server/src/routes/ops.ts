import { Hono } from 'hono';
import type { AppDeps } from '../app';

/** `GET /healthz` (200 once the server accepts connections) and `GET /metrics` (Prometheus text). */
export function opsRoutes(deps: Pick<AppDeps, 'metrics' | 'health'>): Hono {
  const app = new Hono();
  // Scaled mode adds whether PostgreSQL and Redis answer; the instance itself is up either way.
  app.get('/healthz', async (c) => c.json(deps.health ? { ok: true, ...(await deps.health()) } : { ok: true }));
  app.get('/metrics', async (c) => {
    c.header('Content-Type', deps.metrics.registry.contentType);
    return c.body(await deps.metrics.registry.metrics());
  });
  return app;
}
