import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, listAnnotations, type CreatedRoom, type TestServer } from '../helpers/server';
import { annotateLine } from '../helpers/dump-room';

/** `lines` HLO-like lines tagged `PREFIX00001`…, so two dumps never share a line. */
const dump = (prefix: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `  %mul.${i + 1} = f32[64,64]{1,0} multiply(%a, %b) /* ${prefix}${String(i + 1).padStart(5, '0')} */`).join('\n');

/** Where the screenshots go, to be looked at. */
const SHOTS = join(tmpdir(), 'seam-replay-shots');

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
let cy: Person;
const errors: string[] = [];

/** Scrolls the editor so that 1-based `line` is at its top, as a scrollbar drag would. */
async function scrollToLine(page: Page, line: number): Promise<void> {
  await page.evaluate((n) => {
    const scroller = document.querySelector('.cm-scroller') as HTMLElement;
    const h = (document.querySelector('.cm-line') as HTMLElement).getBoundingClientRect().height;
    scroller.scrollTop = (n - 1) * h;
  }, line);
}
const openDoc = (p: Person, title: string) => p.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: new RegExp(title.replace('.', '\\.')) }).click();
/** Sets the replay timeline to `t` as dragging its thumb does. */
const scrub = (page: Page, t: number) =>
  page.getByRole('slider', { name: 'Replay time' }).evaluate((el, v) => {
    const input = el as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, t);
/** The annotation bodies the replay shows, in order. */
const shown = (page: Page) => page.locator('dialog[aria-label="Replay"] .annotation .text').allTextContents();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Session to replay');
  await addDocument(server, room.id, room.tokens.owner, 'first.hlo', dump('A', 400));
  await addDocument(server, room.id, room.tokens.owner, 'second.hlo', dump('B', 400));
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
  bo = await openAs(browser, room.links.annotator, 'Bo', errors);
  cy = await openAs(browser, room.links.annotator, 'Cy', errors);
  for (const p of [ada, bo, cy]) await p.page.locator('.cm-line').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('replay', () => {
  it('lets a student who joins late watch the session again: annotations appear in order and the presenter\'s document and line follow', async () => {
    // The session: Ada presents first.hlo from line 120, Bo asks there, Ada answers, Ada moves to
    // second.hlo line 300, Cy asks there.
    await openDoc(ada, 'first.hlo');
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await ada.page.getByRole('button', { name: 'Stop presenting' }).waitFor();
    await scrollToLine(ada.page, 120);
    await bo.page.getByText('Following Ada').waitFor();
    await bo.page.locator('.cm-line', { hasText: 'A00125' }).waitFor();
    await bo.page.waitForTimeout(600);
    await annotateLine(bo.page, 'A00125', 'Question', 'why is this multiply not fused?');
    await expect.poll(async () => (await listAnnotations(server, room.id, room.tokens.owner)).length).toBe(1);
    const [first] = await listAnnotations(server, room.id, room.tokens.owner);
    await bo.page.waitForTimeout(600);
    const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations/${first?.id}/replies`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'its operand is a parameter', author: { name: 'Ada' } }),
    });
    expect(res.status).toBe(201);
    await ada.page.waitForTimeout(600);
    await openDoc(ada, 'second.hlo');
    await ada.page.locator('.cm-line', { hasText: 'B00001' }).waitFor();
    await scrollToLine(ada.page, 300);
    await cy.page.locator('.cm-line', { hasText: 'B00305' }).waitFor();
    await cy.page.waitForTimeout(600);
    await annotateLine(cy.page, 'B00305', 'Question', 'where does this value spill?');
    await expect.poll(async () => (await listAnnotations(server, room.id, room.tokens.owner)).length).toBe(2);
    const live = await listAnnotations(server, room.id, room.tokens.owner);
    const [q1, q2] = [...live].sort((a, b) => a.createdAt - b.createdAt);
    if (!q1 || !q2) throw new Error('two questions expected');

    // Dee joins late and replays.
    const dee = await openAs(browser, room.links.viewer, 'Dee', errors);
    await dee.page.locator('.cm-line').first().waitFor();
    await dee.page.getByRole('button', { name: 'Replay' }).click();
    const dialog = dee.page.getByRole('dialog', { name: 'Replay' });
    await dialog.getByRole('slider', { name: 'Replay time' }).waitFor();
    await expect.poll(() => dialog.getByTestId('replay-starts').textContent()).toMatch(/^History starts at/);
    expect(await shown(dee.page)).toEqual([]);
    // Ticks mark where the two questions appear.
    await expect.poll(() => dialog.locator('.tick-question').count()).toBe(2);

    // Just after the first question: only it, on first.hlo, the presenter there from line 120.
    await scrub(dee.page, q1.createdAt + 100);
    await expect.poll(() => shown(dee.page)).toEqual(['why is this multiply not fused?']);
    await expect.poll(() => dialog.getByTestId('replay-doc-title').textContent()).toBe('first.hlo');
    expect(Number(await dialog.getByTestId('replay-line').textContent())).toBeGreaterThanOrEqual(115);
    await dialog.locator('.row[data-line="125"]').waitFor();
    await dee.page.screenshot({ path: join(SHOTS, 'replay-first-question.png') });

    // The end: both questions, the answer, and the presenter on second.hlo near line 300.
    await scrub(dee.page, q2.createdAt + 100);
    await expect.poll(() => shown(dee.page)).toEqual(['why is this multiply not fused?', 'where does this value spill?']);
    await dialog.getByText('its operand is a parameter').waitFor();
    await expect.poll(() => dialog.getByTestId('replay-doc-title').textContent()).toBe('second.hlo');
    expect(Math.abs(Number(await dialog.getByTestId('replay-line').textContent()) - 300)).toBeLessThanOrEqual(10);
    await dialog.locator('.row[data-line="305"]').waitFor();
    await dee.page.screenshot({ path: join(SHOTS, 'replay-end.png') });

    // Back to the start and play at 4×: the questions appear one after the other, in order.
    await scrub(dee.page, 0);
    await expect.poll(() => shown(dee.page)).toEqual([]);
    await dialog.getByRole('combobox', { name: 'Speed' }).selectOption('4');
    await dialog.getByRole('button', { name: 'Play', exact: true }).click();
    const seen: string[][] = [];
    await expect.poll(async () => {
      const now = await shown(dee.page);
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(now)) seen.push(now);
      return now.length;
    }, { timeout: 30_000, interval: 50 }).toBe(2);
    expect(seen).toEqual([[], ['why is this multiply not fused?'], ['why is this multiply not fused?', 'where does this value spill?']]);

    // Nothing of the live room changed while replaying.
    expect(await listAnnotations(server, room.id, room.tokens.owner)).toEqual(live);
    await dialog.getByRole('button', { name: 'Close replay' }).click();
    await dialog.waitFor({ state: 'detached' });
    await dee.page.getByRole('button', { name: 'Replay' }).waitFor();
    expect(errors).toEqual([]);
  });
});
