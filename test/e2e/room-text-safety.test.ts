import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { createRoom, type CreatedRoom, type TestServer } from '../helpers/server';

const HOSTILE = '<img src=x onerror="window.__xss=1">';
const DUMP = ['HloModule hostile', `// ${HOSTILE} <script>window.__xss=2</script>`, 'ENTRY %main () -> f32[] {', '  ROOT %c = f32[] constant(1)', '}'].join('\n');

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** Markup that ran or was parsed: the flag the payload sets, and any img or script element in the app. */
async function injected(page: Page): Promise<{ flag: unknown; imgs: number; scripts: number }> {
  return page.evaluate(() => ({
    flag: (window as unknown as { __xss?: unknown }).__xss ?? null,
    // CodeMirror's own empty cursor-buffer images around widgets are not markup from the text.
    imgs: document.querySelectorAll('#app img:not(.cm-widgetBuffer)').length,
    scripts: document.querySelectorAll('#app script').length,
  }));
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, `Room ${HOSTILE}`);
  const up = await fetch(`${server.url}/api/rooms/${room.id}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `dump ${HOSTILE}.hlo`, text: DUMP }),
  });
  expect(up.status).toBe(201);
  ada = await openAs(browser, room.links.owner, `Ada ${HOSTILE}`.slice(0, 40), errors);
  bo = await openAs(browser, room.links.annotator, 'Bo', errors);
  for (const p of [ada, bo]) await p.page.locator('.cm-line', { hasText: '// <img' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('text safety', () => {
  it('renders HTML in a dump, a title, a name and a comment as text', async () => {
    await ada.page.locator('.cm-line', { hasText: '// <img' }).click();
    await ada.page.keyboard.press('Home');
    await ada.page.keyboard.press('Shift+End');
    await ada.page.getByRole('button', { name: 'Note', exact: true }).click();
    await ada.page.getByRole('textbox', { name: 'Comment' }).fill(`look ${HOSTILE}`);
    await ada.page.keyboard.press('Enter');

    const panel = bo.page.getByRole('region', { name: 'Annotations' });
    await panel.getByText(`look ${HOSTILE}`).waitFor();
    await bo.page.getByRole('list', { name: 'Participants' }).getByText('Ada <img', { exact: false }).waitFor();
    await bo.page.getByRole('list', { name: 'Documents' }).getByText(`dump ${HOSTILE}.hlo`).waitFor();
    await bo.page.getByRole('heading', { name: `Room ${HOSTILE}` }).waitFor();
    await bo.page.locator('.cm-content .cm-ann-note').first().hover();
    await bo.page.locator('.cm-ann-tooltip').getByText(`look ${HOSTILE}`).waitFor();
    for (const p of [ada, bo]) expect(await injected(p.page)).toEqual({ flag: null, imgs: 0, scripts: 0 });
    expect(errors).toEqual([]);
  });
});
