import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import * as Y from 'yjs';
import * as encoding from 'lib0/encoding';
import { annotationToYMap, type Annotation } from '@seam/shared/model';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { annotateLine, selectLine } from '../helpers/dump-room';
import { listAnnotations, type TestServer } from '../helpers/server';

const DUMP = new URL('../fixtures/ir/attention/hlo-opt.txt', import.meta.url);
const DUMP_TEXT = readFileSync(DUMP, 'utf8');

let server: TestServer;
let browser: Browser;
let owner: Person;
let annotator: Person;
let viewer: Person;
let roomId = '';
const errors: string[] = [];

function restAnnotations(token: string): Promise<Annotation[]> {
  return listAnnotations(server, roomId, token);
}

function panel(page: Page) {
  return page.getByRole('region', { name: 'Annotations' });
}

function linkOf(page: Page, role: string): Promise<string> {
  return page.getByRole('textbox', { name: `${role} link` }).inputValue();
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  owner = await openAs(browser, server.url, 'Ada', errors);
  await owner.page.getByRole('textbox', { name: 'Room title' }).fill('Attention review');
  await owner.page.getByRole('button', { name: 'Create room' }).click();
  await owner.page.getByRole('heading', { name: 'Attention review' }).waitFor();
  roomId = new URL(owner.page.url()).pathname.split('/')[2] ?? '';
  await owner.page.locator('input[type=file]').setInputFiles({ name: 'attention.hlo', mimeType: 'text/plain', buffer: Buffer.from(DUMP_TEXT) });
  await owner.page.getByRole('list', { name: 'Documents' }).getByText('attention.hlo').waitFor();
  await owner.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).first().waitFor();
  await owner.page.getByRole('button', { name: 'Share' }).click();
  const annotatorLink = await linkOf(owner.page, 'annotator');
  const viewerLink = await linkOf(owner.page, 'viewer');
  await owner.page.getByRole('button', { name: 'Close' }).click();
  annotator = await openAs(browser, annotatorLink, 'Bo', errors);
  viewer = await openAs(browser, viewerLink, 'Cy', errors);
  for (const p of [annotator, viewer]) await p.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('co-annotation in the browser', () => {
  const anchorText = '%convert.50 = bf16[8192,8192]{1,0} convert(%param_1.3)';

  it('shows three people with their roles and the document they are in', async () => {
    for (const p of [owner, annotator, viewer]) {
      const list = p.page.getByRole('list', { name: 'Participants' });
      await expect.poll(() => list.getByRole('listitem').count()).toBe(3);
      await expect.poll(async () => (await list.textContent()) ?? '').toMatch(/Ada.*owner/);
      await expect.poll(async () => (await list.textContent()) ?? '').toMatch(/Bo.*annotator/);
      await expect.poll(async () => (await list.textContent()) ?? '').toMatch(/Cy.*viewer/);
      await expect.poll(async () => (await list.textContent()) ?? '').toContain('attention.hlo');
    }
  });

  it('shows a remote selection on the read-only dump', async () => {
    await selectLine(owner.page, anchorText);
    for (const p of [annotator, viewer]) {
      await p.page.locator('.cm-remote-selection[title="Ada"]').first().waitFor();
      await expect.poll(() => p.page.locator('.cm-remote-selection[title="Ada"]').first().textContent()).toContain(anchorText.slice(0, 10));
    }
  });

  it('keeps the annotate toolbar in the window for a selection ending past it on a long line, where Alt+A reaches it', async () => {
    const page = annotator.page;
    // The module's first line, 269 characters, selected from its start to its end; then the view
    // scrolls back to the line's start, as a reader does, and the selection ends far past the window.
    await page.locator('.cm-line', { hasText: 'HloModule jit_attention, is_scheduled=true' }).first().click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await page.locator('.cm-scroller').first().evaluate((el) => el.scrollTo({ left: 0 }));
    await expect.poll(() => page.locator('.cm-scroller').first().evaluate((el) => el.scrollLeft)).toBe(0);
    const end = await page.evaluate(() => window.getSelection()?.getRangeAt(0).getBoundingClientRect().right ?? 0);
    const win = page.viewportSize()!;
    expect(end).toBeGreaterThan(win.width);
    const bubble = page.getByRole('toolbar', { name: 'Annotate' });
    await bubble.waitFor();
    const box = (await bubble.boundingBox())!;
    expect({ left: box.x >= 0, right: box.x + box.width <= win.width, top: box.y >= 0, bottom: box.y + box.height <= win.height }).toEqual({ left: true, right: true, top: true, bottom: true });
    await page.keyboard.press('Alt+A');
    const focused = page.locator(':focus');
    expect(await focused.getAttribute('aria-label') ?? await focused.textContent()).toBe('Fusion');
    const f = (await focused.boundingBox())!;
    expect(f.x >= 0 && f.x + f.width <= win.width).toBe(true);
    await page.keyboard.press('Escape');
  });

  it('lets an annotator mark a spill that owner and viewer see, reply to and resolve', async () => {
    await annotateLine(annotator.page, anchorText, 'Spill', 'the S×S scores go to HBM and back');
    for (const p of [owner, viewer, annotator]) {
      await panel(p.page).getByText('the S×S scores go to HBM and back').waitFor();
      await p.page.locator('.cm-ann.cm-ann-spill').first().waitFor();
      await p.page.locator('.cm-lineNumbers .cm-ann-glyph.cm-ann-spill').first().waitFor();
    }
    await expect.poll(() => annotator.page.getByRole('status', { name: 'Save status' }).textContent()).toContain('saved');

    await panel(owner.page).getByRole('button', { name: 'Reply', exact: true }).click();
    await owner.page.getByRole('textbox', { name: 'Reply text' }).fill('agreed: 268 MB of traffic');
    await owner.page.keyboard.press('Enter');
    await panel(annotator.page).getByText('agreed: 268 MB of traffic').waitFor();

    await panel(annotator.page).getByRole('button', { name: 'Resolve', exact: true }).click();
    for (const p of [owner, viewer, annotator]) {
      await panel(p.page).getByText('resolved', { exact: true }).waitFor();
      await p.page.locator('.cm-ann.cm-ann-resolved').first().waitFor();
    }
    await panel(owner.page).getByRole('button', { name: 'Reopen', exact: true }).waitFor();

    const ownerToken = new URL(owner.page.url()).hash.replace('#token=', '');
    const listed = await restAnnotations(ownerToken);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ kind: 'spill', body: 'the S×S scores go to HBM and back', resolved: true, author: { name: 'Bo' } });
    expect(listed[0]?.docId).toBe((await owner.page.locator('.editor-host').getAttribute('data-doc-id')) ?? '');
    expect(listed[0]?.quote.exact).toBe(DUMP_TEXT.slice(listed[0]?.from, listed[0]?.to));
    expect(listed[0]?.replies.map((r) => [r.author.name, r.body])).toEqual([['Ada', 'agreed: 268 MB of traffic']]);
  });

  it('lets people edit and delete their own words, and filter the panel', async () => {
    await panel(annotator.page).getByRole('button', { name: 'Edit', exact: true }).click();
    await annotator.page.getByRole('textbox', { name: 'Edit comment' }).fill('the S×S scores round-trip through HBM');
    await annotator.page.keyboard.press('Enter');
    await panel(viewer.page).getByText('the S×S scores round-trip through HBM').waitFor();
    expect(await panel(annotator.page).getByRole('button', { name: 'Edit response' }).count()).toBe(0);

    await panel(owner.page).getByRole('button', { name: 'Reply', exact: true }).click();
    await owner.page.getByRole('textbox', { name: 'Reply text' }).fill('typo, ignore');
    await owner.page.keyboard.press('Enter');
    await panel(annotator.page).getByText('typo, ignore').waitFor();
    await panel(owner.page).getByRole('button', { name: 'Delete response' }).nth(1).click();
    await panel(annotator.page).getByText('typo, ignore').waitFor({ state: 'detached' });
    await panel(annotator.page).getByText('agreed: 268 MB of traffic').waitFor();

    await panel(viewer.page).getByRole('combobox', { name: 'Filter by kind' }).selectOption('note');
    await panel(viewer.page).getByText('No annotation matches these filters.').waitFor();
    await panel(viewer.page).getByRole('combobox', { name: 'Filter by kind' }).selectOption('spill');
    await panel(viewer.page).getByRole('combobox', { name: 'Filter by status' }).selectOption('resolved');
    await panel(viewer.page).getByText('the S×S scores round-trip through HBM').waitFor();
  });

  it('opens the document at the range when a card is clicked', async () => {
    await owner.page.locator('.cm-line').first().click();
    await panel(owner.page).getByRole('button', { name: 'Go to range' }).first().click();
    await expect.poll(() => owner.page.evaluate(() => getSelection()?.toString() ?? '')).toContain(anchorText);
  });

  it('gives the viewer no annotate controls and refuses a write forced from the viewer page', async () => {
    await selectLine(viewer.page, anchorText);
    await viewer.page.locator('.cm-selectionBackground').first().waitFor();
    expect(await viewer.page.getByRole('toolbar', { name: 'Annotate' }).count()).toBe(0);
    expect(await panel(viewer.page).getByRole('button', { name: 'Reply', exact: true }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: 'Resolve', exact: true }).count()).toBe(0);

    const forged = new Y.Doc();
    const a: Annotation = {
      id: 'forged', docId: 'x', from: 0, to: 1, quote: { prefix: '', exact: 'x', suffix: '' }, kind: 'note', body: 'forged by a viewer',
      author: { id: 'v', name: 'Cy', color: '#000000' }, createdAt: 1, resolved: false, replies: [],
    };
    forged.getMap('annotations').set('forged', annotationToYMap(a));
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, 0);
    encoding.writeVarUint(enc, 2);
    encoding.writeVarUint8Array(enc, Y.encodeStateAsUpdate(forged));
    const frame = Array.from(encoding.toUint8Array(enc));
    const viewerToken = new URL(viewer.page.url()).hash.replace('#token=', '');
    const outcome = await viewer.page.evaluate(
      ({ roomId, token, frame }) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`${location.origin.replace('http', 'ws')}/sync/${roomId}?token=${encodeURIComponent(token)}&ack=1`);
          ws.binaryType = 'arraybuffer';
          ws.onopen = () => ws.send(new Uint8Array(frame));
          ws.onmessage = (e) => {
            if (new Uint8Array(e.data as ArrayBuffer)[0] === 100) {
              ws.close();
              resolve('acknowledged');
            }
          };
          ws.onclose = (e) => resolve(`closed ${e.code}`);
        }),
      { roomId, token: viewerToken, frame },
    );
    expect(outcome).toMatch(/acknowledged|closed/);
    const rest = await fetch(`${server.url}/api/rooms/${roomId}/annotations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${viewerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docId: 'x', from: 0, to: 1, kind: 'note', body: 'forged over REST' }),
    });
    expect(rest.status).toBe(403);
    const ownerToken = new URL(owner.page.url()).hash.replace('#token=', '');
    expect((await restAnnotations(ownerToken)).map((x) => x.body)).toEqual(['the S×S scores round-trip through HBM']);
    expect(await panel(owner.page).getByText('forged').count()).toBe(0);
  });

  it('co-edits the room notes, where each person undoes and redoes only their own typing', async () => {
    const notesOf = (p: Person) => p.page.getByRole('textbox', { name: 'Room notes', exact: true });
    // The text as written: line text without widgets (remote carets with their names, the placeholder).
    const textOf = (p: Person) => notesOf(p).evaluate((el) => [...el.querySelectorAll('.cm-line')].map((line) => {
      const copy = line.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('[contenteditable=false], .cm-placeholder').forEach((w) => w.remove());
      return copy.textContent;
    }).join('\n'));
    for (const p of [owner, annotator, viewer]) await p.page.getByRole('button', { name: /Scratchpad/ }).click();
    expect(await owner.page.locator('.cm-placeholder').textContent()).toContain('everyone here edits this text together');
    await notesOf(owner).click();
    await owner.page.keyboard.type('ada: spills first. ');
    await expect.poll(() => textOf(annotator)).toBe('ada: spills first. ');
    await notesOf(annotator).click();
    await annotator.page.keyboard.press('Control+End');
    await annotator.page.keyboard.type('bo: then fusions.');
    await expect.poll(() => textOf(owner)).toBe('ada: spills first. bo: then fusions.');
    await owner.page.keyboard.press('Control+z');
    for (const p of [owner, annotator, viewer]) await expect.poll(() => textOf(p)).toBe('bo: then fusions.');
    await owner.page.keyboard.press('Control+y');
    for (const p of [owner, annotator, viewer]) await expect.poll(() => textOf(p)).toBe('ada: spills first. bo: then fusions.');
    await viewer.page.keyboard.type('cy was here');
    expect(await textOf(viewer)).toBe('ada: spills first. bo: then fusions.');
  });

  it('lets only the owner rotate a link, which disconnects whoever used the old one', async () => {
    await annotator.page.getByRole('button', { name: 'Share', exact: true }).click();
    await annotator.page.getByRole('textbox', { name: 'annotator link' }).waitFor();
    expect(await annotator.page.getByRole('button', { name: /^Rotate/ }).count()).toBe(0);
    expect(await annotator.page.getByRole('textbox', { name: 'viewer link' }).count()).toBe(0);
    await annotator.page.getByRole('button', { name: 'Close' }).click();

    await owner.page.getByRole('button', { name: 'Share', exact: true }).click();
    const before = await linkOf(owner.page, 'viewer');
    await owner.page.getByRole('button', { name: 'Rotate viewer link' }).click();
    await expect.poll(() => linkOf(owner.page, 'viewer')).not.toBe(before);
    await owner.page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => viewer.page.getByRole('status', { name: 'Save status' }).textContent()).toContain('disconnected — token-revoked');
    await expect.poll(() => owner.page.getByRole('list', { name: 'Participants' }).getByRole('listitem').count()).toBe(2);
  });

  it('raised no page errors', () => {
    expect(errors).toEqual([]);
  });
});
