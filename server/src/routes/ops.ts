import { Hono } from 'hono';
import type { AppDeps } from '../app';

/** `GET /healthz` (200 once the server accepts connections) and `GET /metrics` (Prometheus text). */
export function opsRoutes(deps: Pick<AppDeps, 'metrics'>): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/metrics', async (c) => {
    c.header('Content-Type', deps.metrics.registry.contentType);
    return c.body(await deps.metrics.registry.metrics());
  });
  return app;
}
