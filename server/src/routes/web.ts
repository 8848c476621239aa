import { Hono } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppDeps } from '../app';

/** What a person gets for a path that is neither the app, a room link nor a file of the build. */
const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · Seam</title>
<style>:root{color-scheme:light dark;font-family:system-ui,sans-serif}body{max-width:32rem;margin:18vh auto;padding:0 1rem;line-height:1.5}</style>
</head><body><h1>Nothing here</h1>
<p>This address is not a page of Seam. Room links look like <code>/r/…#token=…</code>; check the link you were given.</p>
<p><a href="/">Go to the lobby</a></p></body></html>
`;

/**
 * The built web app from `config.webDir`: static files, and `index.html` for `/` and `/r/*`
 * (the room links); any other path gets a page that says so and links to the lobby (it never
 * repeats the path). Without a build, `/` says how to make one.
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
  app.get('/*', (c) => c.html(NOT_FOUND_PAGE, 404));
  return app;
}
