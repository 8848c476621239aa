import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, WEB_DIST, type Person } from '../helpers/browser';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';

/** The Capture panel end to end: a real server with its local CPU runner on JAX, three people in Chromium. */

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
let cy: Person;
const errors: string[] = [];

async function openCapture(page: Page) {
  await page.getByRole('tab', { name: 'Capture' }).click();
  return page.getByRole('region', { name: 'Capture' });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } }), launchBrowser()]);
  room = await createRoom(server, 'Capture lab');
  await waitFor(async () => {
    const res = await fetch(`${server.url}/api/rooms/${room.id}/runners`, { headers: { authorization: `Bearer ${room.tokens.owner}` } });
    return ((await res.json()) as { runners: unknown[] }).runners.length > 0;
  }, 'the local runner to connect', 120_000);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
  bo = await openAs(browser, room.links.annotator, 'Bo', errors);
  cy = await openAs(browser, room.links.viewer, 'Cy', errors);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the Capture panel', () => {
  it('runs the MLP example from the owner’s panel; another person sees the program, the live status and the capture group arrive', async () => {
    const panel = await openCapture(ada.page);
    const boPanel = await openCapture(bo.page);
    // Bo records every status the queue shows, to see it change live.
    await bo.page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenStatuses: string[] }).seenStatuses = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[aria-label="Capture queue"] [data-status]')) {
          const s = el.getAttribute('data-status') ?? '';
          if (seen.at(-1) !== s) seen.push(s);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
    });

    await panel.getByRole('button', { name: 'Load the MLP example' }).click();
    await expect.poll(() => boPanel.getByRole('textbox', { name: 'Program' }).textContent()).toContain('relu(x @ w + b).mean(axis=-1)');
    expect(await panel.getByRole('textbox', { name: 'Argument specs' }).inputValue()).toBe('f32[32,64]\nf32[64,128]\nf32[128]');
    await panel.getByRole('textbox', { name: 'Program' }).click();
    await boPanel.locator('.cm-ySelectionInfo', { hasText: 'Ada' }).waitFor({ state: 'attached' });
    await panel.getByRole('combobox', { name: 'Runner' }).selectOption('local');
    expect(await panel.getByRole('combobox', { name: 'Runner' }).locator('option:checked').textContent()).toMatch(/^local — cpu\b/);
    await panel.getByRole('button', { name: 'Run capture' }).click();

    const group = bo.page.getByRole('list', { name: 'Documents' }).getByRole('list', { name: 'capture #1' });
    await expect.poll(() => group.locator('.badge').allTextContents(), { timeout: 150_000 }).toEqual(['JAXPR', 'SHLO', 'HLO', 'HLO·opt', 'TEXT', 'TEXT']);
    const boJob = boPanel.getByRole('list', { name: 'Capture queue' }).locator('[data-status]');
    await expect.poll(() => boJob.getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    expect(await boJob.textContent()).toMatch(/mlp\(f32\[32,64\], f32\[64,128\], f32\[128\]\)[\s\S]*on local · cpu/);
    const seen = await bo.page.evaluate(() => (window as unknown as { seenStatuses: string[] }).seenStatuses);
    expect(seen).toContain('running');
    expect(seen.at(-1)).toBe('done');

    // The optimized HLO opens from the capture group, with its fusion.
    await group.getByRole('button', { name: /hlo-opt|HLO·opt/ }).click();
    await bo.page.locator('.cm-line', { hasText: 'HloModule jit_mlp' }).first().waitFor();
    expect(errors).toEqual([]);
  });

  it('names the artifacts by what they are and shows the cost analysis’s FLOPs and the provenance on the card, inside the panel', async () => {
    const job = (await openCapture(cy.page)).getByRole('list', { name: 'Capture queue' }).locator('[data-status="done"]').first();
    await job.waitFor();
    expect((await job.locator('.results button').allTextContents()).sort()).toEqual(['HLO', 'StableHLO', 'cost analysis', 'jaxpr', 'memory analysis', 'optimized HLO']);
    const docs = (await (await fetch(`${server.url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json() as { documents: { id: string; title: string }[] }).documents;
    const cost = docs.find((d) => d.title === 'mlp: cost analysis')!;
    const costText = await (await fetch(`${server.url}/api/rooms/${room.id}/documents/${cost.id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).text();
    const flops = (JSON.parse(costText) as { flops: number }).flops;
    expect(flops).toBeGreaterThan(0);
    expect(await job.locator('.flops').textContent()).toBe(`${flops.toLocaleString('en-US')} FLOPs`);
    const facts = job.getByRole('definition');
    expect(await job.getByRole('term').allTextContents()).toEqual(['versions', 'XLA flags']);
    expect(await facts.allTextContents()).toEqual([expect.stringMatching(/^JAX 0\.10\.2 · jaxlib 0\.10\.2 · Python 3\.\d+\.\d+$/), 'none']);
    // The card fits the side panel: nothing in it is drawn past the panel's right edge.
    const overflow = await cy.page.evaluate(() => {
      const panel = document.querySelector('[aria-label="Capture"]')!;
      const right = panel.getBoundingClientRect().right;
      return [...panel.querySelectorAll('[aria-label="Capture queue"] *')].filter((el) => el.getBoundingClientRect().right > right + 1).map((el) => el.className);
    });
    expect(overflow).toEqual([]);
  });

  it('shows the Python traceback of a program with a syntax error in the panel', async () => {
    const panel = await openCapture(ada.page);
    await panel.getByRole('textbox', { name: 'Program' }).click();
    await ada.page.keyboard.press('Control+a');
    await ada.page.keyboard.insertText('import jax\n\ndef mlp(:\n    return 1\n');
    await panel.getByRole('button', { name: 'Run capture' }).click();
    const failed = panel.getByRole('list', { name: 'Capture queue' }).locator('[data-status="failed"]');
    await failed.waitFor({ timeout: 150_000 });
    await expect.poll(() => failed.getByLabel('Traceback').textContent()).toMatch(/SyntaxError/);
    const boPanel = await openCapture(bo.page);
    await expect.poll(() => boPanel.locator('[data-status="failed"]').getByLabel('Traceback').textContent()).toMatch(/File "program\.py", line 3/);
    expect(errors).toEqual([]);
  });

  it('lets the owner cancel a running capture, and allow annotators to capture', async () => {
    const boPanel = await openCapture(bo.page);
    expect(await boPanel.getByRole('button', { name: 'Run capture' }).count()).toBe(0);
    const panel = await openCapture(ada.page);
    await panel.getByRole('checkbox', { name: 'Annotators may capture' }).check();
    await boPanel.getByRole('button', { name: 'Run capture' }).waitFor();

    await panel.getByRole('textbox', { name: 'Program' }).click();
    await ada.page.keyboard.press('Control+a');
    await ada.page.keyboard.insertText('import time\n\ndef mlp(x, w, b):\n    time.sleep(600)\n');
    await panel.getByRole('button', { name: 'Run capture' }).click();
    const running = panel.getByRole('list', { name: 'Capture queue' }).locator('[data-status="running"]');
    await running.waitFor({ timeout: 120_000 });
    await running.getByRole('button', { name: 'Cancel capture' }).click();
    await bo.page.getByRole('list', { name: 'Capture queue' }).locator('[data-status="cancelled"]').waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
  });

  it('shows a viewer the queue but no Run or Cancel control, and no program to edit', async () => {
    const panel = await openCapture(cy.page);
    await expect.poll(() => panel.getByRole('list', { name: 'Capture queue' }).locator('[data-status]').count()).toBe(3);
    expect(await panel.getByRole('button', { name: 'Run capture' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Cancel capture' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Load the MLP example' }).count()).toBe(0);
    expect(await panel.getByRole('textbox', { name: 'Program' }).getAttribute('contenteditable')).toBe('false');
    expect(errors).toEqual([]);
  });
});
