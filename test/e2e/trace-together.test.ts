import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, addTrace, createRoom, listAnnotations, type CreatedRoom, type TestServer } from '../helpers/server';
import { ATTENTION_HLO as HLO, ATTENTION_TRACE_GZ as TRACE_GZ } from '../helpers/attention-capture';

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

const canvas = (page: Page) => page.locator('canvas[aria-label^="Timeline"]');
const marks = (page: Page) => page.getByRole('group', { name: 'Annotations on the timeline' });
const visibleRange = async (page: Page) => (await page.getByLabel('Visible range').textContent()) ?? '';
const panel = (page: Page) => page.getByRole('region', { name: 'Annotations' });
const openTrace = (page: Page) => page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /attention\.trace\.json\.gz/ }).click();

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Attention together');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt', HLO);
  await addTrace(server, room.id, room.tokens.owner, 'attention.trace.json.gz', TRACE_GZ);
  [ada, bo] = await Promise.all([openAs(browser, room.links.owner, 'Ada', errors), openAs(browser, room.links.annotator, 'Bo', errors)]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a trace, together', () => {
  it('annotates a selected time range and an op from the trace view', async () => {
    const page = ada.page;
    await openTrace(page);
    await canvas(page).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Annotate op' }).isEnabled(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByRole('button', { name: 'Annotate range' }).isDisabled()).toBe(true);
    const box = (await canvas(page).boundingBox())!;
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + 180 + (box.width - 180) * 0.3, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + 180 + (box.width - 180) * 0.5, box.y + 60, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.getByRole('button', { name: 'Annotate range' }).click();
    const rangeForm = page.getByRole('form', { name: 'Annotate range' });
    await rangeForm.getByRole('radio', { name: 'Question' }).click();
    await rangeForm.getByRole('textbox', { name: 'Comment' }).fill('why <b>idle</b> here?');
    await rangeForm.getByRole('button', { name: 'Save' }).click();

    await page.getByRole('button', { name: 'Annotate op' }).click();
    const opForm = page.getByRole('form', { name: 'Annotate op' });
    await opForm.getByRole('combobox', { name: 'Op' }).selectOption('jit_attention/convert_exponential_fusion');
    await opForm.getByRole('radio', { name: 'Fusion' }).click();
    await opForm.getByRole('button', { name: 'Save' }).click();

    await expect.poll(async () => (await listAnnotations(server, room.id, room.tokens.viewer)).length).toBe(2);
    const [range, op] = await listAnnotations(server, room.id, room.tokens.viewer);
    expect(range).toMatchObject({ kind: 'question', body: 'why <b>idle</b> here?', author: { name: 'Ada' }, trace: { type: 'range' } });
    expect(op).toMatchObject({ kind: 'fusion', trace: { type: 'op', op: 'convert_exponential_fusion', module: 'jit_attention' } });
    const r = range!.trace as { fromUs: number; toUs: number };
    expect(r.toUs).toBeGreaterThan(r.fromUs);
    await expect.poll(async () => Number(await marks(page).getAttribute('data-bands'))).toBe(1);
  });

  it('shows both to the other person in the panel and on the timeline, and takes their reply', async () => {
    const page = bo.page;
    await openTrace(page);
    await canvas(page).waitFor();
    const cards = panel(page).locator('article.thread');
    await expect.poll(() => cards.count()).toBe(2);
    const labels = await cards.locator('code.quote').allTextContents();
    expect(labels[0]).toMatch(/^\d+(\.\d)?–\d+(\.\d)? (ms|µs|s)$/);
    expect(labels[1]).toBe('op convert_exponential_fusion');
    // The comment is text: the tags show as written.
    expect(await cards.first().locator('p.body').textContent()).toContain('why <b>idle</b> here?');
    await expect.poll(async () => Number(await marks(page).getAttribute('data-bands'))).toBe(1);
    await expect.poll(async () => Number(await marks(page).getAttribute('data-op-markers')), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: '/tmp/trace-together-marks.png' });

    await cards.first().getByRole('button', { name: 'Reply' }).click();
    await cards.first().getByRole('textbox', { name: 'Reply text' }).fill('the host waits on the copy');
    await cards.first().getByRole('button', { name: 'Send' }).click();
    await expect.poll(async () => (await panel(ada.page).locator('article.thread').first().textContent()) ?? '').toContain('the host waits on the copy');
  });

  it('opens the trace at an annotation’s range when it is chosen in the panel', async () => {
    const page = bo.page;
    const whole = await visibleRange(page);
    await panel(page).locator('article.thread').first().getByRole('button', { name: 'Go to range' }).click();
    await expect.poll(() => visibleRange(page)).not.toBe(whole);
    await expect.poll(() => page.getByRole('complementary', { name: 'Selected range' }).count()).toBe(1);
    await canvas(page).focus();
    await page.keyboard.press('0');
    await expect.poll(() => visibleRange(page)).toBe(whole);
  });

  it('moves the follower’s timeline with the presenter’s zoom, pan and selection, until the follower moves it', async () => {
    await ada.page.getByRole('button', { name: 'Present', exact: true }).click();
    await bo.page.getByText('Following Ada').waitFor();
    const box = (await canvas(ada.page).boundingBox())!;
    await ada.page.mouse.move(box.x + 180 + (box.width - 180) * 0.6, box.y + 30);
    await ada.page.mouse.wheel(0, -600);
    await canvas(ada.page).focus();
    await ada.page.keyboard.press('ArrowLeft');
    const zoomed = await visibleRange(ada.page);
    await expect.poll(() => visibleRange(bo.page)).toBe(zoomed);
    await ada.page.keyboard.press('+');
    await expect.poll(() => visibleRange(ada.page)).not.toBe(zoomed);
    const closer = await visibleRange(ada.page);
    await expect.poll(() => visibleRange(bo.page)).toBe(closer);
    // The presenter's selected range too: none once Ada clears hers, then the one she drags.
    const selected = (page: Page) => page.getByRole('complementary', { name: 'Selected range' });
    await ada.page.keyboard.press('Escape');
    await expect.poll(() => selected(ada.page).count()).toBe(0);
    await expect.poll(() => selected(bo.page).count()).toBe(0);
    await ada.page.keyboard.down('Shift');
    await ada.page.mouse.move(box.x + 180 + (box.width - 180) * 0.4, box.y + 40);
    await ada.page.mouse.down();
    await ada.page.mouse.move(box.x + 180 + (box.width - 180) * 0.6, box.y + 60, { steps: 5 });
    await ada.page.mouse.up();
    await ada.page.keyboard.up('Shift');
    await expect.poll(() => selected(bo.page).count()).toBe(1);
    await ada.page.screenshot({ path: '/tmp/trace-together-presenter.png' });
    await bo.page.screenshot({ path: '/tmp/trace-together-follower.png' });

    // The follower zooms on their own: that stops following, and the presenter no longer moves them.
    await canvas(bo.page).focus();
    await bo.page.keyboard.press('+');
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
    const own = await visibleRange(bo.page);
    await ada.page.keyboard.press('0');
    await expect.poll(() => visibleRange(ada.page)).not.toBe(closer);
    // Following again takes the presenter's view at once.
    await bo.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await expect.poll(() => visibleRange(bo.page)).toBe(await visibleRange(ada.page));
    expect(own).not.toBe(await visibleRange(bo.page));
  });

  it('exports both annotations with their anchors, as inert text', async () => {
    const md = await (await fetch(`${server.url}/api/rooms/${room.id}/export.md`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).text();
    expect(md).toContain('attention.trace.json.gz, op `convert_exponential_fusion` in `jit_attention` — Ada');
    expect(md).toMatch(/attention\.trace\.json\.gz, \d+(\.\d)?–\d+(\.\d)? (ms|µs|s) — Ada/);
    expect(md).toContain('why &lt;b&gt;idle&lt;/b&gt; here?');
    expect(md).toContain('the host waits on the copy');
    const json = (await (await fetch(`${server.url}/api/rooms/${room.id}/export.json`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as { annotations: { trace?: { type: string } }[] };
    expect(json.annotations.map((a) => a.trace?.type).sort()).toEqual(['op', 'range']);
    expect(errors).toEqual([]);
  });
});
