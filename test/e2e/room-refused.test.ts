import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { MessageType } from '@seam/shared/protocol';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { annotateLine, saveStatus } from '../helpers/dump-room';
import { createRoom, listAnnotations, type CreatedRoom, type TestServer } from '../helpers/server';

const DUMP = ['HloModule refused_case', '', 'ENTRY %main (p: f32[1024]) -> f32[1024] {', '  %p = f32[1024]{0} parameter(0)', '  ROOT %neg = f32[1024]{0} negate(%p)', '}'].join('\n');

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];
/** While true, frames from the server to Bo's page wait in `held`: Bo's view of the room lags behind. */
let holding = false;
const held: { data: string | Buffer; deliver: () => void }[] = [];

/** The refusal banner's list of what the reload cost. */
function notSaved(page: Page) {
  return page.getByRole('alert').getByRole('list', { name: 'Not saved' });
}

/** How many refused messages from the server wait in `held`. */
function heldRefusals(): number {
  return held.filter((f) => typeof f.data !== 'string' && f.data[0] === MessageType.refused).length;
}

async function restBodies(): Promise<string[]> {
  return (await listAnnotations(server, room.id, room.tokens.owner)).map((a) => a.body);
}

/** Every update y-indexeddb keeps for the room in Bo's browser, decoded as UTF-8 (Yjs stores strings as UTF-8). */
function storedText(page: Page): Promise<string> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      const all = await new Promise<unknown[]>((resolve, reject) => {
        const r = db.transaction('updates').objectStore('updates').getAll();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      return all.map((u) => new TextDecoder().decode(u as Uint8Array)).join('\n');
    } finally {
      db.close();
    }
  }, `seam-room-${room.id}`);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Refused');
  const up = await fetch(`${server.url}/api/rooms/${room.id}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'neg.hlo', text: DUMP }),
  });
  expect(up.status).toBe(201);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
  // Bo's socket goes through a relay that can hold the server's frames back, as a slow link would.
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.routeWebSocket(/\/sync\//, (ws) => {
    const upstream = ws.connectToServer();
    ws.onMessage((m) => upstream.send(m));
    upstream.onMessage((m) => {
      if (holding) held.push({ data: m, deliver: () => ws.send(m) });
      else ws.send(m);
    });
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`Bo: ${e.message}`));
  await page.goto(room.links.annotator);
  await page.getByRole('textbox', { name: 'Your name' }).fill('Bo');
  await page.getByRole('button', { name: 'Continue' }).click();
  bo = { context, page, name: 'Bo' };
  for (const p of [ada, bo]) await p.page.locator('.cm-line', { hasText: 'negate' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a refused change', () => {
  it('tells the annotator who wrote into a lock they had not seen yet, resyncs, and lets a later change land', async () => {
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    holding = true;
    await ada.page.getByRole('button', { name: 'Lock room' }).click();
    await expect.poll(() => saveStatus(ada.page).textContent()).toContain('saved');

    // Bo has not seen the lock: the annotate controls are still there, and the write goes out.
    await annotateLine(bo.page, 'negate', 'Note', 'written into the lock');
    await bo.page.getByRole('region', { name: 'Annotations' }).getByText('written into the lock').waitFor();
    await expect.poll(() => held.some((f) => typeof f.data !== 'string' && f.data[0] === MessageType.refused)).toBe(true);
    holding = false;
    for (const f of held.splice(0)) f.deliver();

    await expect.poll(() => bo.page.getByRole('alert').filter({ hasText: 'Your last change was refused' }).textContent()).toContain(
      'Your last change was refused: the room is locked',
    );
    await expect.poll(() => bo.page.getByRole('region', { name: 'Annotations' }).getByText('written into the lock').count()).toBe(0);
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    await bo.page.getByText('The room is locked: only the owner can write.').waitFor();
    // The note is not lost as text: the banner lists it, and it cannot be written again while locked.
    const refused = notSaved(bo.page).getByRole('listitem').filter({ hasText: '“written into the lock”' });
    await refused.waitFor();
    expect(await refused.getByRole('button', { name: 'Write again' }).isDisabled()).toBe(true);
    expect(await restBodies()).toEqual([]);
    // The refused change is gone from this browser's stored copy too, which now mirrors the server.
    await expect.poll(() => storedText(bo.page)).toContain('locked');
    expect(await storedText(bo.page)).not.toContain('written into the lock');

    await ada.page.getByRole('button', { name: 'Unlock room' }).click();
    await expect.poll(() => bo.page.getByText('The room is locked: only the owner can write.').count()).toBe(0);
    await annotateLine(bo.page, 'negate', 'Note', 'after the unlock');
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('after the unlock').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    expect(await restBodies()).toEqual(['after the unlock']);
    expect(errors).toEqual([]);
  });

  it('lists the later changes that a refusal cost too, with their text, and writes one again on request', async () => {
    await bo.page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    holding = true;
    await ada.page.getByRole('button', { name: 'Lock room' }).click();
    await expect.poll(() => saveStatus(ada.page).textContent()).toContain('saved');
    await annotateLine(bo.page, 'parameter', 'Note', 'second write into the lock');
    await expect.poll(heldRefusals).toBe(1);
    // Ada unlocks before Bo hears of either; Bo's next note would be allowed, but it follows the
    // refused one on the same replica, so the server refuses it as a gap.
    await ada.page.getByRole('button', { name: 'Unlock room' }).click();
    await expect.poll(() => saveStatus(ada.page).textContent()).toContain('saved');
    await annotateLine(bo.page, 'negate', 'Note', 'allowed, but after the refused one');
    await expect.poll(heldRefusals).toBe(2);
    holding = false;
    for (const f of held.splice(0)) f.deliver();

    const items = notSaved(bo.page).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(2);
    const texts = await items.allTextContents();
    expect(texts.some((t) => t.includes('“second write into the lock”'))).toBe(true);
    expect(texts.some((t) => t.includes('“allowed, but after the refused one”'))).toBe(true);
    await expect.poll(() => bo.page.getByRole('alert').textContent()).toContain('These 2 changes were not saved:');
    expect(await restBodies()).toEqual(['after the unlock']);

    await items.filter({ hasText: 'allowed, but after the refused one' }).getByRole('button', { name: 'Write again' }).click();
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('allowed, but after the refused one').waitFor();
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    expect((await restBodies()).sort()).toEqual(['after the unlock', 'allowed, but after the refused one']);
    expect(await items.allTextContents()).toEqual([expect.stringContaining('“second write into the lock”')]);
    expect(errors).toEqual([]);
  });

  it('keeps what was typed into the notes through a refusal, as the person’s version to copy back', async () => {
    await bo.page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
    await bo.page.getByRole('button', { name: /Scratchpad/ }).click();
    const notes = bo.page.getByRole('textbox', { name: 'Room notes', exact: true });
    await notes.click();
    await bo.page.keyboard.type('saved line. ');
    await expect.poll(() => saveStatus(bo.page).textContent()).toContain('saved');
    holding = true;
    await ada.page.getByRole('button', { name: 'Lock room' }).click();
    await expect.poll(() => saveStatus(ada.page).textContent()).toContain('saved');
    await notes.click();
    await bo.page.keyboard.press('End');
    await bo.page.keyboard.type('typed into the lock');
    await expect.poll(heldRefusals).toBeGreaterThan(0);
    holding = false;
    for (const f of held.splice(0)) f.deliver();

    const item = notSaved(bo.page).getByRole('listitem').filter({ hasText: 'changes to the room notes' });
    await item.waitFor();
    await item.getByText('Your version').click();
    expect(await item.getByRole('textbox', { name: 'Your version: changes to the room notes' }).inputValue()).toBe('saved line. typed into the lock');
    expect(await item.getByRole('button', { name: 'Write again' }).count()).toBe(0);
    await bo.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await item.getByRole('button', { name: 'Copy' }).click();
    await item.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await bo.page.evaluate(() => navigator.clipboard.readText())).toBe('saved line. typed into the lock');
    await expect.poll(() => notes.textContent()).toBe('saved line. ');
    await ada.page.getByRole('button', { name: 'Unlock room' }).click();
    expect(errors).toEqual([]);
  });
});
