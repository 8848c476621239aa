import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let bo: Person;
const ids: Record<string, string> = {};
const errors: string[] = [];
/** `docId?part` of every analysis request the page made, in order (`whole` for the unsplit one). */
const requests: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'analysis in parts');
  ids.jaxpr = await addDocument(server, room.id, room.tokens.owner, 'mlp.jaxpr', fixture('mlp', 'jaxpr.txt'));
  ids.stablehlo = await addDocument(server, room.id, room.tokens.owner, 'mlp.stablehlo', fixture('mlp', 'stablehlo-debug.mlir'));
  ids.hlo = await addDocument(server, room.id, room.tokens.owner, 'mlp.hlo-opt', fixture('mlp', 'hlo-opt.txt'));
  bo = await openAs(browser, room.links.viewer, 'Bo', errors);
  bo.context.on('request', (r) => {
    const u = new URL(r.url());
    const m = /\/documents\/([^/]+)\/analysis$/.exec(u.pathname);
    if (m) requests.push(`${m[1]}?${u.searchParams.get('part') ?? 'whole'}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the analysis in parts', () => {
  it('fills the outline of the first dump from its views part, without the cross-layer keys or the whole analysis', async () => {
    await bo.page.reload();
    await bo.page.getByRole('navigation', { name: 'Outline' }).getByRole('button', { name: /jaxpr/ }).first().waitFor();
    expect(requests).toContain(`${ids.jaxpr}?views`);
    expect(requests.filter((r) => !r.endsWith('?views'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('starts fetching the three layers’ keys when Split view is pointed at, before any click', async () => {
    const split = bo.page.getByRole('button', { name: 'Split view' });
    await split.hover();
    const all = [ids.jaxpr, ids.stablehlo, ids.hlo].map((id) => `${id}?keys`).sort();
    await expect.poll(() => requests.filter((r) => r.endsWith('?keys')).sort(), { timeout: 15_000 }).toEqual(all);
    expect(await split.getAttribute('aria-pressed')).toBe('false');
    expect(errors).toEqual([]);
  });

  it('links the three layers with each layer’s keys fetched once, and lights up counterparts', async () => {
    await bo.page.getByRole('button', { name: 'Split view' }).click();
    const j = bo.page.getByRole('region', { name: 'Pane: mlp.jaxpr' });
    const s = bo.page.getByRole('region', { name: 'Pane: mlp.stablehlo' });
    await j.locator('.cm-line', { hasText: '= dot_general[' }).hover();
    await expect.poll(async () => (await s.locator('.cm-line.cm-ir-linked').allTextContents()).join('\n'), { timeout: 15_000 }).toContain('stablehlo.dot_general');
    await j.locator('.cm-line', { hasText: '= reduce_sum[' }).hover();
    await expect.poll(async () => (await s.locator('.cm-line.cm-ir-linked').allTextContents()).join('\n')).toContain('stablehlo.reduce');
    const keys = requests.filter((r) => r.endsWith('?keys')).sort();
    expect(keys).toEqual([ids.jaxpr, ids.stablehlo, ids.hlo].map((id) => `${id}?keys`).sort());
    expect(requests.filter((r) => r.endsWith('?whole'))).toEqual([]);
    expect(errors).toEqual([]);
  });
});
