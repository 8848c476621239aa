import { Hono } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppDeps } from '../app';

/**
 * The built web app from `config.webDir`: static files, and `index.html` for `/` and `/r/*`
 * (the room links). Without a build, `/` says how to make one.
 */
export function webRoutes(deps: Pick<AppDeps, 'config'>): Hono {
  const app = new Hono();
  const dir = deps.config.webDir;
  if (!dir || !existsSync(join(dir, 'index.html'))) {
    app.get('/', (c) => c.text('The web app is not built. Run `npm run build`, then reload.\n', 503));
    return app;
  }
  const root = relative(process.cwd(), dir) || '.';
  const index = serveStatic({ root, path: 'index.html' });
  app.get('/', index);
  app.get('/r/*', index);
  app.get('/*', serveStatic({ root }));
  return app;
}
