import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { createRoom, type CreatedRoom, type TestServer } from '../helpers/server';

const DUMP = ['HloModule offline_case', '', 'ENTRY %main (p: f32[1024]) -> f32[1024] {', '  %p = f32[1024]{0} parameter(0)', '  ROOT %neg = f32[1024]{0} negate(%p)', '}'].join('\n');

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

function saveStatus(page: Page) {
  return page.getByRole('status', { name: 'Save status' });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Offline');
  const up = await fetch(`${server.url}/api/rooms/${room.id}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'neg.hlo', text: DUMP }),
  });
  expect(up.status).toBe(201);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
  bo = await openAs(browser, room.links.annotator, 'Bo', errors);
  for (const p of [ada, bo]) await p.page.locator('.cm-line', { hasText: 'negate' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('offline', () => {
  it('keeps annotations made offline, says so honestly, and syncs them when the connection returns', async () => {
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    await bo.context.setOffline(true);
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('offline');

    await bo.page.locator('.cm-line', { hasText: 'negate' }).click();
    await bo.page.keyboard.press('Home');
    await bo.page.keyboard.press('Shift+End');
    await bo.page.getByRole('button', { name: 'Question', exact: true }).click();
    await bo.page.getByRole('textbox', { name: 'Comment' }).fill('why is this not fused?');
    await bo.page.keyboard.press('Enter');
    await bo.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('offline — 1 change waiting');
    expect(await ada.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').count()).toBe(0);

    await bo.context.setOffline(false);
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('why is this not fused?').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    const { annotations } = (await res.json()) as { annotations: { kind: string; body: string }[] };
    expect(annotations.map((a) => [a.kind, a.body])).toEqual([['question', 'why is this not fused?']]);
    expect(errors).toEqual([]);
  });
});
