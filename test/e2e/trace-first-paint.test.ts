import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { createRoom, type CreatedRoom, type TestServer } from '../helpers/server';

const xplane = readFileSync(new URL('../fixtures/trace/mlp.xplane.pb', import.meta.url));

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'A trace first');
  const res = await fetch(`${server.url}/api/rooms/${room.id}/documents?title=mlp.xplane.pb`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/octet-stream' }, body: new Uint8Array(xplane),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a room whose first document is a trace', () => {
  it('draws its timeline from the summary and overview index.html starts, each asked for once, and never fetches the original', async () => {
    const errors: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript(() => localStorage.setItem('seam.identity', JSON.stringify({ id: 'u-bo', name: 'Bo', color: '#1971c2' })));
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    const asked: string[] = [];
    page.on('request', (r) => {
      const m = /\/documents\/[^/]+\/(text|trace\/[a-z]+)/.exec(r.url());
      if (m) asked.push(m[1]!);
    });
    await page.goto(room.links.viewer);
    const canvas = page.locator('canvas[aria-label^="Timeline"]');
    await canvas.waitFor();
    await expect.poll(() => canvas.evaluate((c: HTMLCanvasElement) => {
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!) > 40) n++;
      return n;
    }), { timeout: 15_000 }).toBeGreaterThan(100);
    await page.getByRole('region', { name: 'Op table' }).locator('tbody tr').first().waitFor();
    expect(asked.sort()).toEqual(['trace/ops', 'trace/overview', 'trace/summary']);
    expect(errors).toEqual([]);
    await context.close();
  });
});
