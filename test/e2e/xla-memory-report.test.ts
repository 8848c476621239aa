import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';
import { openDocument } from './ir-kit';
import { roomDocuments } from '../helpers/import-kit';

/**
 * XLA's memory-usage report in the room (the MLP compiled by XLA:CPU with `--xla_dump_to`, imported
 * as a folder: test/fixtures/xla-dump/README.md), and what the views waiting on an analysis say
 * while it loads and when it fails. Real server, real Chromium.
 */

const DIR = new URL('../fixtures/xla-dump/mlp/', import.meta.url);
const REPORT = 'module_0000.jit_mlp.cpu_after_optimizations-memory-usage-report.txt';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

/** Imports `files` (name → text) as folder `folder`, as the Folder button does. */
async function importFolder(roomId: string, token: string, folder: string, files: Record<string, string>): Promise<void> {
  const form = new FormData();
  for (const [name, body] of Object.entries(files)) form.append('file', new Blob([body]), `${folder}/${name}`);
  const res = await fetch(`${server.url}/api/rooms/${roomId}/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  expect(res.status).toBe(201);
}

function mlpFiles(): Record<string, string> {
  return Object.fromEntries(readdirSync(DIR).map((n) => [n, readFileSync(new URL(n, DIR), 'utf8')]));
}

/**
 * Routes `person`'s requests for stored analyses (views parts) by the document's title: `hold`
 * titles wait for the returned release, `fail` titles are answered 500; then reloads the page so
 * that every analysis it asks for goes through the route (the first one opened included).
 */
async function routeAnalyses(person: Person, room: CreatedRoom, rule: { hold: (title: string) => boolean; fail: (title: string) => boolean }): Promise<() => void> {
  const docs = await roomDocuments(server, room);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await person.context.route(/\/documents\/[^/]+\/analysis\?part=views$/, async (route: Route) => {
    const title = docs.find((d) => route.request().url().includes(`/documents/${d.id}/`))?.title ?? '';
    if (rule.hold(title)) {
      await held;
      await route.continue();
    } else if (rule.fail(title)) await route.fulfill({ status: 500, body: 'no' });
    else await route.continue();
  });
  await person.page.reload();
  await person.page.getByRole('list', { name: 'Documents' }).waitFor();
  return release;
}

async function openReport(page: Page) {
  await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /memory-usage report/ }).click();
  const view = page.getByRole('region', { name: 'Memory usage report' });
  await view.getByRole('table', { name: 'Allocations by size' }).waitFor();
  return view;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the memory-usage report of a dump folder', () => {
  let ada: Person;

  beforeAll(async () => {
    const room = await createRoom(server, 'MLP: memory');
    await importFolder(room.id, room.tokens.owner, 'mlp', mlpFiles());
    ada = await openAs(browser, room.links.owner, 'Ada', errors);
  });

  it('shows the report’s total, its allocations with their kinds from the buffer assignment, and bytes by kind', async () => {
    const view = await openReport(ada.page);
    const summary = view.locator('.summary');
    await expect.poll(async () => (await summary.textContent()) ?? '', { timeout: 15_000 }).toContain('5 of 8 allocations matched');
    expect(await summary.getAttribute('data-total')).toBe('29644');
    expect((await summary.textContent())?.replace(/\s+/g, ' ')).toContain('XLA’s total 28.9 KiB · 8 allocations · 10 offsets');
    const tables = view.getByRole('table', { name: 'Allocations by size' }).locator('tbody tr');
    expect(await tables.evaluateAll((rows) => rows.map((r) => [Number(r.getAttribute('data-size')), r.getAttribute('data-allocation')]))).toEqual([
      [16384, '0'], [8832, '7'], [4096, '1'], [256, '2'], [64, '3'], [4, ''], [4, ''], [4, ''],
    ]);
    expect((await tables.nth(1).locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['2 · allocation 7', '8.6 KiB', 'preallocated-temp', '3', 'f32[32,64] · f32[128] · f32[32]']);
    const kinds = view.getByRole('table', { name: 'Bytes by kind' }).locator('tbody tr');
    expect(await kinds.evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-kind'), Number(r.getAttribute('data-bytes'))]))).toEqual([
      ['parameter', 20736], ['preallocated-temp', 8832], ['output, maybe-live-out', 64], ['unknown', 12],
    ]);
  });

  it('sorts the values by size both ways and by offset, and opens a value’s line in the optimized HLO', async () => {
    const view = ada.page.getByRole('region', { name: 'Memory usage report' });
    const values = view.getByRole('table', { name: 'Largest values' });
    const sizes = () => values.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-bytes'))));
    expect(await sizes()).toEqual([16384, 8192, 4096, 512, 256, 128, 64, 4, 4, 4]);
    await view.getByRole('button', { name: 'Sort values by size, smallest first' }).click();
    expect(await sizes()).toEqual([4, 4, 4, 64, 128, 256, 512, 4096, 8192, 16384]);
    await view.getByRole('button', { name: 'Sort values by offset' }).click();
    expect((await values.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-offset'))))).slice(-2)).toEqual([8192, 8704]);
    await ada.page.screenshot({ path: '/tmp/i/memory-report.png' });

    await values.locator('tr[data-offset="8704"]').getByRole('button', { name: 'ynn_fusion' }).click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toMatch(/^\s*%?ynn_fusion = f32\[32\]\{0\} fusion\(/);
    expect(errors).toEqual([]);
  });

  it('leaves the Spills panel’s plan line alone when the report agrees with the buffer assignment', async () => {
    // The value's link opened the optimized HLO: the Spills panel describes it.
    expect(await ada.page.locator('.tabs .tab').textContent()).toBe('mlp/module_0000.jit_mlp.cpu_after_optimizations.txt');
    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    const line = ada.page.getByRole('region', { name: 'Spills' }).getByLabel('XLA\'s plan');
    await expect.poll(async () => (await line.getAttribute('data-allocated')) ?? '', { timeout: 15_000 }).toBe('8832');
    expect(await line.locator('.report-total').count()).toBe(0);
  });
});

describe('a memory-usage report of another compile', () => {
  it('says so beside the buffer assignment’s total in the Spills panel, and matches none of its allocations', async () => {
    const room = await createRoom(server, 'MLP: a stale report');
    const files = mlpFiles();
    // The scanned RNN's report, under the MLP's name: 1,972 bytes against the MLP's 29,644.
    files[REPORT] = readFileSync(new URL('../fixtures/xla-dump/scan-passes/module_0000.jit_rnn.cpu_after_optimizations-memory-usage-report.txt', import.meta.url), 'utf8');
    await importFolder(room.id, room.tokens.owner, 'mlp', files);
    const bo = await openAs(browser, room.links.viewer, 'Bo', errors);
    await openDocument(bo.page, 'after optimizations (cpu)', 'HloModule jit_mlp');
    await bo.page.getByRole('tab', { name: 'Spills' }).click();
    const report = bo.page.getByRole('region', { name: 'Spills' }).getByLabel('XLA\'s plan').locator('.report-total');
    await expect.poll(async () => (await report.getAttribute('data-report')) ?? '', { timeout: 15_000 }).toBe('1972');
    expect((await report.textContent())?.replace(/\s+/g, ' ')).toBe(', the memory-usage report’s 1.9 KiB');

    const view = await openReport(bo.page);
    await expect.poll(async () => (await view.locator('.summary').textContent()) ?? '', { timeout: 15_000 }).toContain('0 of');
    expect(await view.getByRole('table', { name: 'Largest values' }).locator('tbody button').count()).toBe(0);
    expect(await view.getByRole('table', { name: 'Bytes by kind' }).locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')))).toEqual(['unknown']);
    expect(errors).toEqual([]);
  });
});

describe('a hostile memory-usage report', () => {
  it('shows its rows and shapes as text, and its broken rows as problems', async () => {
    const room = await createRoom(server, 'hostile report');
    const text = 'Memory Space: default (color=0)\nTotal bytes: 8 (8B)\n  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n  ------------------------------------------------------------\n         4B( 50%);         4B;            0;                1; <img src=x onerror="window.pwned=1">\n  oops <b>bold</b>\n';
    await addDocument(server, room.id, room.tokens.owner, 'evil memory-usage-report.txt', text);
    const eve = await openAs(browser, room.links.viewer, 'Eve', errors);
    const view = eve.page.getByRole('region', { name: 'Memory usage report' });
    await view.getByRole('list', { name: 'Problems' }).waitFor();
    expect(await view.getByRole('list', { name: 'Problems' }).textContent()).toContain('expected `cumulative(pct%); size; offset; values; shapes` in a memory-usage table');
    expect(await view.getByRole('table', { name: 'Largest values' }).textContent()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await eve.page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await eve.page.locator('img[src="x"], b').count()).toBe(0);
  });
});

describe('views waiting on an analysis', () => {
  it('say which document is being analysed and its size while it loads, then show it; and say why when it fails', async () => {
    const room = await createRoom(server, 'MLP: progress');
    await importFolder(room.id, room.tokens.owner, 'mlp', mlpFiles());
    const cy = await openAs(browser, room.links.viewer, 'Cy', errors);
    // The optimized HLO's stored analysis is held back until the page has said it is waiting on it.
    const release = await routeAnalyses(cy, room, { hold: (t) => t.endsWith('cpu_after_optimizations.txt'), fail: (t) => t.endsWith('before_optimizations.txt') });
    await cy.page.getByRole('tab', { name: 'Spills' }).click();
    await cy.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /after optimizations \(cpu\)/ }).click();
    const outline = cy.page.getByRole('navigation', { name: 'Outline' });
    const hloBytes = readFileSync(new URL('module_0000.jit_mlp.cpu_after_optimizations.txt', DIR)).length;
    expect(hloBytes).toBe(4202);
    const waiting = 'Analysing mlp/module_0000.jit_mlp.cpu_after_optimizations.txt… 4.1 KiB';
    await expect.poll(async () => (await outline.getByRole('status').textContent()) ?? '', { timeout: 15_000 }).toBe(waiting);
    expect(await cy.page.getByRole('region', { name: 'Spills' }).getByRole('status').first().textContent()).toBe(waiting);
    release();
    await expect.poll(() => outline.getByRole('button').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await outline.getByRole('status').count()).toBe(0);

    await cy.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /before optimizations/ }).click();
    const failed = 'Could not analyse mlp/module_0000.jit_mlp.before_optimizations.txt: analysis views request answered 500';
    await expect.poll(async () => (await outline.getByRole('status').textContent()) ?? '', { timeout: 15_000 }).toBe(failed);
    expect(await cy.page.getByRole('region', { name: 'Spills' }).getByRole('status').first().textContent()).toBe(failed);
    await cy.page.screenshot({ path: '/tmp/i/analysis-failed.png' });
    expect(errors).toEqual([]);
  });

  it('Mapping names the layer it waits on, then pairs the layers; a layer whose analysis failed is named with the reason', async () => {
    const room = await createRoom(server, 'MLP: mapping progress');
    await addDocument(server, room.id, room.tokens.owner, 'mlp.jaxpr', fixture('mlp', 'jaxpr.txt'));
    await addDocument(server, room.id, room.tokens.owner, 'mlp.stablehlo', fixture('mlp', 'stablehlo-debug.mlir'));
    await addDocument(server, room.id, room.tokens.owner, 'mlp.hlo-opt', fixture('mlp', 'hlo-opt.txt'));
    expect(fixture('mlp', 'hlo-opt.txt').length).toBe(4023);
    const dee = await openAs(browser, room.links.viewer, 'Dee', errors);
    const release = await routeAnalyses(dee, room, { hold: (t) => t === 'mlp.hlo-opt', fail: () => false });
    await openDocument(dee.page, 'mlp.jaxpr', '{ lambda');
    await dee.page.getByRole('button', { name: 'Mapping' }).click();
    const mapping = dee.page.getByRole('region', { name: 'Mapping' });
    await expect.poll(async () => (await mapping.getByRole('status').textContent()) ?? '', { timeout: 15_000 }).toBe('Analysing mlp.hlo-opt… 3.9 KiB');
    release();
    await expect.poll(() => mapping.locator('tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await mapping.getByRole('status').count()).toBe(0);

    const eli = await openAs(browser, room.links.viewer, 'Eli', errors);
    await routeAnalyses(eli, room, { hold: () => false, fail: (t) => t === 'mlp.stablehlo' });
    await openDocument(eli.page, 'mlp.jaxpr', '{ lambda');
    await eli.page.getByRole('button', { name: 'Mapping' }).click();
    await expect.poll(async () => (await eli.page.getByRole('region', { name: 'Mapping' }).getByRole('status').textContent()) ?? '', { timeout: 15_000 }).toBe('Could not analyse mlp.stablehlo: analysis views request answered 500');
    expect(errors).toEqual([]);
  });
});
