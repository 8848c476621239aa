import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config';
import { webRoutes } from './web';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Seam</title>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('web app routes', () => {
  it('serves index.html for / and room links, and static assets', async () => {
    const app = webRoutes({ config: resolveConfig({ webDir: dir }) });
    for (const path of ['/', '/r/someRoom']) {
      const res = await app.request(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>Seam</title>');
    }
    const asset = await app.request('/assets/app.js');
    expect(await asset.text()).toBe('console.log(1)');
    expect((await app.request('/missing.js')).status).toBe(404);
  });

  it('answers an unknown path with a page that links to the lobby and never repeats the path', async () => {
    const app = webRoutes({ config: resolveConfig({ webDir: dir }) });
    for (const path of ['/nope', '/rooms/abc', '/%3Cimg%20src=x%20onerror=alert(1)%3E']) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      const page = await res.text();
      expect(page).toContain('<a href="/">Go to the lobby</a>');
      expect(page).not.toContain('nope');
      expect(page).not.toContain('onerror');
    }
  });

  it('says how to build the app when there is no build', async () => {
    const app = webRoutes({ config: resolveConfig({ webDir: join(dir, 'nope') }) });
    const res = await app.request('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});
