import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OpAggregate } from '@seam/shared/trace';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, addTrace, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { ATTENTION_HLO as HLO, ATTENTION_TRACE_GZ as TRACE_GZ } from '../helpers/attention-capture';

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let traceId: string;
let ops: OpAggregate[];
const errors: string[] = [];

const api = (path: string) => fetch(`${server.url}/api/rooms/${room.id}/documents/${traceId}/trace/${path}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
const table = (page: Page) => page.getByRole('region', { name: 'Op table' });
/** The op names in the table, top down. */
const tableOps = (page: Page) => table(page).locator('tbody tr td:first-child').allTextContents();
const visibleRange = async (page: Page) => (await page.getByLabel('Visible range').textContent()) ?? '';

/** Pixels of the timeline's plot that are coloured like an event (the background, grid and labels are grey). */
function colouredPixels(page: Page): Promise<{ count: number; points: { x: number; y: number }[] }> {
  return page.locator('canvas[aria-label^="Timeline"]').evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d')!;
    const { data, width, height } = ctx.getImageData(0, 0, c.width, c.height);
    const scale = c.width / c.getBoundingClientRect().width;
    const points: { x: number; y: number }[] = [];
    let count = 0;
    for (let y = 0; y < height; y += 1) {
      for (let x = Math.ceil(180 * scale); x < width; x += 1) {
        const i = (y * width + x) * 4;
        const r = data[i]!, g = data[i + 1]!, b = data[i + 2]!;
        if (Math.max(r, g, b) - Math.min(r, g, b) > 40) {
          count++;
          if (x % 7 === 0 && y % 5 === 0) points.push({ x: x / scale, y: y / scale });
        }
      }
    }
    return { count, points };
  });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Attention trace');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt', HLO);
  traceId = await addTrace(server, room.id, room.tokens.owner, 'attention.trace.json.gz', TRACE_GZ);
  ops = (await (await api('ops')).json()) as OpAggregate[];
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a trace in the room', () => {
  it('draws the tracks on a canvas and lists the same ops as the trace API', async () => {
    const page = ada.page;
    // The dump opened first can wrap its lines; a trace has none to wrap.
    const wrap = page.getByRole('checkbox', { name: 'Wrap lines' });
    await wrap.waitFor();
    await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /attention\.trace\.json\.gz/ }).click();
    const canvas = page.locator('canvas[aria-label^="Timeline"]');
    await canvas.waitFor();
    expect(await wrap.count()).toBe(0);
    await expect.poll(async () => (await colouredPixels(page)).count, { timeout: 15_000 }).toBeGreaterThan(500);
    expect(ops.length).toBe(15);
    await expect.poll(() => tableOps(page)).toEqual(ops.map((o) => o.op));
    // Bytes and bandwidth come from the optimized HLO uploaded beside the trace: every op is one of its instructions.
    await expect.poll(() => table(page).getByRole('button', { name: /^Open .* in the optimized HLO$/ }).count()).toBe(15);
    const dot = table(page).locator('tbody tr', { hasText: 'dot_general.2' });
    const cells = await dot.locator('td').allTextContents();
    expect(cells[6]).toBe(`${((8192 * 8192 * 4 + 2 * 8192 * 128 * 4) / 1024 / 1024).toFixed(1)} MB`);
    expect(cells[8]).not.toBe('—');
    await page.screenshot({ path: '/tmp/trace-view.png' });
  });

  it('sorts by a column either way and searches op names', async () => {
    const page = ada.page;
    await table(page).getByRole('button', { name: /^Mean/ }).click();
    const byMean = [...ops].sort((a, b) => b.meanUs - a.meanUs).map((o) => o.op);
    await expect.poll(() => tableOps(page)).toEqual(byMean);
    await table(page).getByRole('button', { name: /^Mean/ }).click();
    await expect.poll(() => tableOps(page)).toEqual([...byMean].reverse());
    await table(page).getByRole('button', { name: /^HLO op/ }).click();
    await expect.poll(() => tableOps(page)).toEqual(ops.map((o) => o.op).sort((a, b) => a.localeCompare(b)));
    await table(page).getByRole('searchbox', { name: 'Search ops' }).fill('REDUCE-WINDOW');
    await expect.poll(() => tableOps(page)).toEqual(['wrapped_reduce-window', 'wrapped_reduce-window.1', 'wrapped_reduce-window.2', 'wrapped_reduce-window.3']);
    await table(page).getByRole('searchbox', { name: 'Search ops' }).fill('');
  });

  it('zooms in and out around the pointer, changing the visible range', async () => {
    const page = ada.page;
    const canvas = page.locator('canvas[aria-label^="Timeline"]');
    const whole = await visibleRange(page);
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + 180 + (box.width - 180) / 2, box.y + 30);
    await page.mouse.wheel(0, -600);
    await expect.poll(() => visibleRange(page)).not.toBe(whole);
    const zoomed = await visibleRange(page);
    await canvas.focus();
    await page.keyboard.press('+');
    await expect.poll(() => visibleRange(page)).not.toBe(zoomed);
    await page.keyboard.press('0');
    await expect.poll(() => visibleRange(page)).toBe(whole);
  });

  it('shows an event on hover and a selected range with its statistics', async () => {
    const page = ada.page;
    const canvas = page.locator('canvas[aria-label^="Timeline"]');
    const box = (await canvas.boundingBox())!;
    const { points } = await colouredPixels(page);
    const tip = page.getByRole('tooltip');
    let found = false;
    for (const p of points.filter((_, i) => i % Math.max(1, Math.floor(points.length / 60)) === 0)) {
      await page.mouse.move(box.x + p.x, box.y + p.y);
      if ((await tip.count()) && /hlo_op/.test((await tip.textContent()) ?? '')) {
        found = true;
        break;
      }
    }
    expect(found).toBe(true);
    expect(await tip.textContent()).toMatch(/module jit_attention.*duration/s);
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + 200, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 20, box.y + 60, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const stats = page.getByRole('complementary', { name: 'Selected range' });
    await expect.poll(async () => (await stats.textContent()) ?? '').toMatch(/\d+ events/);
    await expect.poll(() => stats.locator('li .mono').count()).toBeGreaterThan(0);
    await page.screenshot({ path: '/tmp/trace-view-range.png' });
    await stats.getByRole('button', { name: 'Clear the selected range' }).click();
  });

  it('opens the optimized HLO at an op row’s instruction line', async () => {
    const page = ada.page;
    await table(page).getByRole('button', { name: 'Open dot_general.2 in the optimized HLO' }).click();
    await expect.poll(async () => (await page.locator('.cm-activeLine').textContent()) ?? '', { timeout: 15_000 }).toMatch(/^\s*%dot_general\.2 = f32\[8192,8192\]/);
    await page.screenshot({ path: '/tmp/trace-view-hlo.png' });
  });

  it('opens the optimized HLO at an event’s instruction when the event is clicked', async () => {
    const page = ada.page;
    await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /attention\.trace\.json\.gz/ }).click();
    const canvas = page.locator('canvas[aria-label^="Timeline"]');
    await expect.poll(async () => (await colouredPixels(page)).count, { timeout: 15_000 }).toBeGreaterThan(500);
    const box = (await canvas.boundingBox())!;
    const { points } = await colouredPixels(page);
    const tip = page.getByRole('tooltip');
    let op: string | null = null;
    for (const p of points.filter((_, i) => i % Math.max(1, Math.floor(points.length / 60)) === 0)) {
      await page.mouse.move(box.x + p.x, box.y + p.y);
      op = (await tip.count()) ? (/hlo_op (\S+)/.exec((await tip.textContent()) ?? '')?.[1] ?? null) : null;
      if (op) break;
    }
    expect(op).not.toBeNull();
    await page.mouse.down();
    await page.mouse.up();
    await expect.poll(async () => (await page.locator('.cm-activeLine').textContent()) ?? '', { timeout: 15_000 }).toMatch(new RegExp(`^\\s*%${op!.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')} = `));
  });

  it('downloads the original, gzipped, for Perfetto', async () => {
    const page = ada.page;
    await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /attention\.trace\.json\.gz/ }).click();
    const link = page.getByRole('link', { name: 'Download for Perfetto' });
    const href = await link.getAttribute('href');
    expect(href).toMatch(new RegExp(`/documents/${traceId}/trace/original\\?token=`));
    const res = await fetch(new URL(href!, server.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="attention.trace.json.gz"');
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(gunzipSync(Buffer.from(await res.arrayBuffer())).equals(gunzipSync(TRACE_GZ))).toBe(true);
    expect((await fetch(`${server.url}/api/rooms/${room.id}/documents/${traceId}/trace/original`)).status).toBe(401);
    // Perfetto UI is handed the original by postMessage (test/e2e/trace-links.test.ts).
    expect(await page.getByRole('button', { name: /Open in Perfetto UI/ }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });
});
