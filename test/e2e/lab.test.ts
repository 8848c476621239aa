import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { LabResults } from '@seam/shared/teaching';
import { launchBrowser, openAs, WEB_DIST, type Person } from '../helpers/browser';
import { createRoom, startTestServer, waitFor, type TestServer } from '../helpers';

/**
 * Labs end to end against a server with its local CPU runner on JAX, in Chromium: LAB·2.1 opened
 * from the lobby, its capture run and its mapping built; LAB·2.2 in a class of two, where each
 * person's spill annotation is checked on its own and the owner sees the class's count.
 */

let server: TestServer;
let browser: Browser;
let ada: Person;
const errors: string[] = [];
const shots: string[] = [];

async function shoot(page: Page, name: string): Promise<void> {
  const path = join(tmpdir(), `seam-lab-${name}.png`);
  await page.screenshot({ path });
  shots.push(path);
}

const step = (page: Page, title: string): Locator => page.getByRole('list', { name: 'Lab steps' }).getByRole('listitem', { name: `Step: ${title}` });
const markOf = (page: Page, title: string) => step(page, title).getByRole('img').getAttribute('aria-label');

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } }), launchBrowser()]);
  const probe = await createRoom(server, 'runner probe');
  await waitFor(async () => {
    const res = await fetch(`${server.url}/api/rooms/${probe.id}/runners`, { headers: { authorization: `Bearer ${probe.tokens.owner}` } });
    return ((await res.json()) as { runners: unknown[] }).runners.length > 0;
  }, 'the local runner to connect', 120_000);
  ada = await openAs(browser, `${server.url}/`, 'Ada', errors);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  console.log(`lab screenshots: ${shots.join(', ')}`);
});

describe('LAB·2.1 from the lobby', () => {
  it('opens the lab from the lobby into a new room showing its program and its open steps', async () => {
    const labs = ada.page.getByRole('region', { name: 'Open a lab' });
    await labs.getByRole('button', { name: 'LAB·2.3 Trace the spill and close the gate' }).waitFor();
    await shoot(ada.page, 'lobby');
    await labs.getByRole('button', { name: 'LAB·2.1 One function, three layers' }).click();
    await ada.page.waitForURL(/\/r\//);
    const panel = ada.page.getByLabel('Lab', { exact: true });
    await panel.getByRole('heading', { name: 'LAB·2.1 One function, three layers' }).waitFor();
    expect(await ada.page.getByRole('tab', { name: 'Lab' }).getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => markOf(ada.page, 'Capture the three layers')).toBe('not done');
    expect(await markOf(ada.page, 'Build the mapping table')).toBe('not done');
    expect(await step(ada.page, 'Build the mapping table').textContent()).toContain('Open the Mapping view for the capture.');
    expect(await panel.getByRole('region', { name: 'Lab captures' }).textContent()).toContain('f(bf16[32,64], bf16[64,128], bf16[128])');
    // The lab's program is in the room, shown as text.
    await panel.getByText('Program mlp').click();
    expect(await panel.getByLabel('Program mlp').textContent()).toBe('import jax\n\n\ndef f(x, w, b):\n    h = x @ w + b\n    return jax.nn.relu(h).mean(axis=-1)\n');
  });

  it('runs the lab\'s capture with the real runner and checks the capture step', async () => {
    const panel = ada.page.getByLabel('Lab', { exact: true });
    await panel.getByRole('button', { name: 'Run f' }).click();
    const group = ada.page.getByRole('list', { name: 'Documents' }).getByRole('list', { name: 'capture #1' });
    await expect.poll(() => group.locator('.badge').allTextContents(), { timeout: 150_000 }).toEqual(['JAXPR', 'SHLO', 'HLO', 'HLO·opt', 'TEXT', 'TEXT']);
    await expect.poll(() => markOf(ada.page, 'Capture the three layers'), { timeout: 30_000 }).toBe('done');
    expect(await step(ada.page, 'Capture the three layers').textContent()).toContain('f was captured');
  });

  it('builds the mapping table and sees the mapping step checked', async () => {
    await ada.page.getByRole('button', { name: 'Mapping' }).click();
    const mapping = ada.page.getByRole('region', { name: 'Mapping' });
    await expect.poll(async () => (await mapping.locator('tbody tr').allTextContents()).join('\n'), { timeout: 30_000 }).toMatch(/dot_general[\s\S]*dot/);
    await expect.poll(() => markOf(ada.page, 'Build the mapping table'), { timeout: 30_000 }).toBe('done');
    expect(await step(ada.page, 'Build the mapping table').textContent()).toMatch(/all 1 dot_general equations map to StableHLO and HLO/);
    await shoot(ada.page, 'room-checked');
    // The room document holds the same results for everyone.
    const href = new URL(ada.page.url());
    const roomId = href.pathname.split('/').at(-1) ?? '';
    const token = new URLSearchParams(href.hash.slice(1)).get('token') ?? '';
    const res = await fetch(`${server.url}/api/rooms/${roomId}/lab/check`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const { results } = (await res.json()) as { results: LabResults };
    expect(Object.fromEntries(Object.entries(results.room).map(([k, v]) => [k, v.done]))).toEqual({ capture: true, mapping: true });
    expect(errors).toEqual([]);
  });
});

describe('LAB·2.2 in a class of two', () => {
  let owner: Person;
  let bo: Person;

  it('checks the spill step for the member who marked the S×S scores, and counts the class for the owner', async () => {
    const room = await createRoom(server, 'Spill lab');
    const opened = await fetch(`${server.url}/api/rooms/${room.id}/lab`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ lab: 'lab-2.2' }),
    });
    expect(opened.status).toBe(201);
    owner = await openAs(browser, room.links.owner, 'Prof', errors);
    bo = await openAs(browser, room.links.annotator, '<b>Bo</b>', errors);
    const panel = owner.page.getByLabel('Lab', { exact: true });
    await panel.getByRole('button', { name: 'Run naive_attention' }).click();
    await expect.poll(() => markOf(owner.page, 'Capture the optimized HLO'), { timeout: 150_000 }).toBe('done');
    await expect.poll(() => markOf(bo.page, 'Capture the optimized HLO')).toBe('done');
    expect(await markOf(bo.page, 'Mark the spill with your estimate')).toBe('not done');

    // Bo opens the optimized HLO and marks the bf16 S×S value the Spills panel lists.
    const group = bo.page.getByRole('list', { name: 'Documents' }).getByRole('list', { name: 'capture #1' });
    await group.getByRole('button', { name: /hlo-opt|HLO·opt/ }).click();
    await bo.page.locator('.cm-line', { hasText: 'HloModule jit_naive_attention' }).first().waitFor();
    await bo.page.getByRole('tab', { name: 'Spills' }).click();
    const row = bo.page.getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').filter({ hasText: 'bf16[8192,8192]' });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    await row.getByRole('button', { name: 'Mark as spill' }).click();
    await bo.page.getByRole('tab', { name: 'Lab' }).click();
    await expect.poll(() => markOf(bo.page, 'Mark the spill with your estimate'), { timeout: 30_000 }).toBe('done');
    expect(await step(bo.page, 'Mark the spill with your estimate').textContent()).toContain('your estimate is within 0.0% of the 134,217,728 bytes the dump gives');
    // Only the owner sees the class; the owner's own step stays open: the annotation is Bo's.
    expect(await step(bo.page, 'Mark the spill with your estimate').getByLabel('Class progress').count()).toBe(0);
    await expect.poll(() => step(owner.page, 'Mark the spill with your estimate').getByLabel('Class progress').textContent()).toBe('1 of 1 in the class');
    expect(await markOf(owner.page, 'Mark the spill with your estimate')).toBe('not done');
    await shoot(owner.page, 'class-owner');
    await shoot(bo.page, 'class-student');
    expect(errors).toEqual([]);
  });
});

describe('LAB·2.3 on the CPU', () => {
  it('checks the gate step exactly when the room\'s gate for the traced capture passes', async () => {
    const room = await createRoom(server, 'Gate lab');
    const auth = { authorization: `Bearer ${room.tokens.owner}` };
    const opened = await fetch(`${server.url}/api/rooms/${room.id}/lab`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ lab: 'lab-2.3' }) });
    expect(opened.status).toBe(201);
    const prof = await openAs(browser, room.links.owner, 'Prof', errors);
    await prof.page.getByLabel('Lab', { exact: true }).getByRole('button', { name: 'Run naive_attention' }).click();
    await expect.poll(() => markOf(prof.page, 'Record a trace'), { timeout: 170_000 }).toBe('done');
    const jobs = (await (await fetch(`${server.url}/api/rooms/${room.id}/captures`, { headers: auth })).json()) as { jobs: Array<{ id: string; status: string }> };
    const job = jobs.jobs.find((j) => j.status === 'done')!;
    const gate = await fetch(`${server.url}/api/rooms/${room.id}/captures/${job.id}/gate`, { headers: auth });
    const body = (await gate.json()) as { gate?: { pass: boolean }; error?: { message: string } };
    const expected = gate.status === 200 && body.gate?.pass === true ? 'done' : 'not done';
    await expect.poll(() => markOf(prof.page, 'Close the gate'), { timeout: 30_000 }).toBe(expected);
    const detail = await step(prof.page, 'Close the gate').textContent();
    if (gate.status === 200) expect(detail).toMatch(body.gate?.pass ? /the gate passed: measured within/ : /the gate did not pass/);
    else expect(detail).toContain(`the gate cannot be computed: ${body.error?.message ?? ''}`);
    await shoot(prof.page, 'gate');
    expect(errors).toEqual([]);
  }, 240_000);
});
