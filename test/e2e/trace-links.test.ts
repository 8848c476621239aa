import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { CaptureEntry, DocumentMeta, GateReport } from '@seam/shared/model';
import type { OpAggregate } from '@seam/shared/trace';
import { launchBrowser, openAs, startWebServer, WEB_DIST, type Person } from '../helpers/browser';
import { addDocument, createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { ATTENTION } from '../helpers/capture-kit';
import { ATTENTION_HLO, ATTENTION_TRACE_GZ } from '../helpers/attention-capture';
import { dropFiles } from '../helpers/dump-room';

/**
 * Traces in by the browser (the + picker and a drop, streamed as raw bodies) and the links between
 * a trace and its optimized HLO: hovering an instruction or a fused computation highlights that
 * op's events and op-table row beside it in split view, the HLO's hover says the op's measured time,
 * and the Gate card's op names open their HLO line. Real JAX-written traces and dumps throughout.
 */

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const HLO = ATTENTION_HLO;
const ATTENTION_GZ = ATTENTION_TRACE_GZ;
const MLP_XPLANE = readFileSync(fixture('trace/mlp.xplane.pb'));

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
const errors: string[] = [];

const documents = async (r = room, s = server): Promise<DocumentMeta[]> =>
  ((await (await fetch(`${s.url}/api/rooms/${r.id}`, { headers: { authorization: `Bearer ${r.tokens.viewer}` } })).json()) as { documents: DocumentMeta[] }).documents;
const opsOf = async (docId: string): Promise<OpAggregate[]> =>
  (await (await fetch(`${server.url}/api/rooms/${room.id}/documents/${docId}/trace/ops`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as OpAggregate[];
const opRows = (page: Page) => page.getByRole('region', { name: 'Op table' }).locator('tbody tr');
const canvas = (page: Page) => page.locator('canvas[aria-label^="Timeline"]');

/** The trace's document once the room lists it, and its trace view open with as many rows as the API's ops. */
async function seeTraceOpen(page: Page, title: string): Promise<DocumentMeta> {
  let doc: DocumentMeta | undefined;
  await waitFor(async () => (doc = (await documents()).find((d) => d.title === title)) !== undefined, `${title} in the room`, 30_000);
  expect(doc!.kind).toBe('trace');
  const ops = await opsOf(doc!.id);
  expect(ops.length).toBeGreaterThan(0);
  await expect.poll(() => page.getByRole('toolbar', { name: 'Trace' }).locator('.title').textContent(), { timeout: 15_000 }).toBe(title);
  await expect.poll(() => opRows(page).count(), { timeout: 15_000 }).toBe(ops.length);
  expect(await opRows(page).locator('td:first-child').allTextContents()).toEqual(expect.arrayContaining(ops.map((o) => o.op)));
  return doc!;
}

/** Canvas pixels exactly of the timeline's highlight colour (its outline colour, the theme's accent). */
function highlightPixels(page: Page): Promise<number> {
  return canvas(page).evaluate((c: HTMLCanvasElement) => {
    const m = /rgba?\((\d+), (\d+), (\d+)/.exec(getComputedStyle(c.parentElement!).outlineColor)!;
    const [r, g, b] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] === r && data[i + 1] === g && data[i + 2] === b) n++;
    return n;
  });
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Traces in');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt.txt', HLO);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('traces in by the browser', () => {
  it('uploads a gzipped JSON trace picked with + and opens its trace view', async () => {
    const page = ada.page;
    await page.getByRole('button', { name: 'Upload files' }).waitFor();
    await page.locator('input[type=file]').setInputFiles(fixture('trace/mlp.trace.json.gz'));
    await seeTraceOpen(page, 'mlp.trace.json.gz');
    await page.screenshot({ path: '/tmp/trace-links-picker.png' });
  });

  it('uploads an xplane.pb dropped on the room and opens its trace view', async () => {
    const page = ada.page;
    await dropFiles(page, [{ name: 'mlp.xplane.pb', bytes: MLP_XPLANE }]);
    await seeTraceOpen(page, 'mlp.xplane.pb');
  });

  it('says why a truncated .json.gz cannot be read, as text, and adds nothing', async () => {
    const page = ada.page;
    const before = await documents();
    await dropFiles(page, [{ name: 'broken <b>trace</b>.json.gz', bytes: ATTENTION_GZ.subarray(0, ATTENTION_GZ.length >> 1) }]);
    const alert = page.getByRole('navigation', { name: 'Room documents' }).getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 15_000 }).toMatch(/^broken <b>trace<\/b>\.json\.gz: not a readable trace: /);
    expect(await alert.locator('b').count()).toBe(0);
    expect(await documents()).toEqual(before);
    await page.screenshot({ path: '/tmp/trace-links-truncated.png' });
  });
});

describe('an HLO beside its trace', () => {
  let ops: OpAggregate[];

  it('opens the dropped trace in split view beside the optimized HLO its ops run in', async () => {
    const page = ada.page;
    await dropFiles(page, [{ name: 'attention.trace.json.gz', bytes: ATTENTION_GZ }]);
    ops = await opsOf((await seeTraceOpen(page, 'attention.trace.json.gz')).id);
    await page.getByRole('button', { name: 'Split view' }).click();
    await page.getByRole('region', { name: 'Pane: attention.hlo-opt.txt' }).locator('.cm-line').first().waitFor();
    await page.getByRole('region', { name: 'Pane: attention.trace.json.gz' }).locator('canvas[aria-label^="Timeline"]').waitFor();
    expect(await page.locator('section[aria-label^="Pane: "]').evaluateAll((s) => s.map((x) => x.getAttribute('aria-label')))).toEqual(['Pane: attention.hlo-opt.txt', 'Pane: attention.trace.json.gz']);
  });

  it('highlights a fusion’s events and its row when a line of its fused computation is hovered', async () => {
    const page = ada.page;
    const hlo = page.getByRole('region', { name: 'Pane: attention.hlo-opt.txt' });
    await expect.poll(() => highlightPixels(page), { timeout: 15_000 }).toBe(0);
    // The first instruction inside %fused_computation.2, which %convert_exponential_fusion calls.
    await hlo.locator('.cm-line', { hasText: '%fused_computation.2 (' }).waitFor();
    const inside = hlo.locator('.cm-line', { hasText: /^\s+%param_0\.10 = / });
    await inside.hover({ position: { x: 30, y: 5 } });
    const fusion = ops.find((o) => o.op === 'convert_exponential_fusion')!;
    await expect.poll(() => canvas(page).getAttribute('data-highlight'), { timeout: 15_000 }).toBe('convert_exponential_fusion');
    await expect.poll(async () => Number(await canvas(page).getAttribute('data-highlighted')), { timeout: 15_000 }).toBe(fusion.count);
    await expect.poll(() => highlightPixels(page), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await opRows(page).and(page.locator('[data-highlighted="true"]')).locator('td:first-child').allTextContents()).toEqual(['convert_exponential_fusion']);
    await page.screenshot({ path: '/tmp/trace-links-hover-fusion.png' });
  });

  it('highlights an instruction’s own events and says its measured time in the HLO’s hover', async () => {
    const page = ada.page;
    const hlo = page.getByRole('region', { name: 'Pane: attention.hlo-opt.txt' });
    const dot = ops.find((o) => o.op === 'dot_general.2')!;
    const line = hlo.locator('.cm-line', { hasText: /^\s+%dot_general\.2 = / });
    // The ENTRY computation is at the end of the dump: scroll there, so the editor draws it.
    await hlo.locator('.cm-scroller').evaluate((s) => s.scrollTo(0, s.scrollHeight));
    await line.waitFor();
    await line.hover({ position: { x: 40, y: 5 } });
    await expect.poll(() => canvas(page).getAttribute('data-highlight'), { timeout: 15_000 }).toBe('dot_general.2');
    await expect.poll(async () => Number(await canvas(page).getAttribute('data-highlighted'))).toBe(dot.count);
    const tip = page.locator('.cm-ir-hover[role="tooltip"]');
    // The same total and mean as the op table's row, from the same trace ops.
    const cells = await opRows(page).filter({ has: page.locator('td:first-child', { hasText: /^dot_general\.2$/ }) }).locator('td').allTextContents();
    expect(Number(cells[2])).toBe(dot.count);
    await expect.poll(() => tip.textContent(), { timeout: 15_000 }).toContain(`trace dot_general.2: total ${cells[3]} · mean ${cells[4]} · ${dot.count} events`);
    await page.screenshot({ path: '/tmp/trace-links-hover-dot.png' });
    // Leaving the dump clears the highlight.
    await page.getByRole('toolbar', { name: 'Trace' }).hover();
    await expect.poll(() => canvas(page).getAttribute('data-highlight')).toBe('');
    await expect.poll(() => highlightPixels(page)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('hands the original to Perfetto UI in a new tab with its PING/PONG handshake', async () => {
    const page = ada.page;
    // ui.perfetto.dev cannot be reached from here: a page at its origin answers as it does and keeps what it is posted.
    await ada.context.route('https://ui.perfetto.dev/**', (r) => r.fulfill({
      contentType: 'text/html',
      body: `<script>addEventListener('message', (e) => {
        if (e.data === 'PING') e.source.postMessage('PONG', '*');
        else if (e.data && e.data.perfetto) { const p = e.data.perfetto; window.got = { title: p.title, fileName: p.fileName, bytes: p.buffer.byteLength, magic: [...new Uint8Array(p.buffer, 0, 2)] }; }
      });</script>`,
    }));
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: /Open in Perfetto UI/ }).click()]);
    expect(popup.url()).toBe('https://ui.perfetto.dev/');
    await expect.poll(() => popup.evaluate(() => (window as unknown as { got?: unknown }).got ?? null), { timeout: 15_000 })
      .toEqual({ title: 'attention.trace.json.gz', fileName: 'attention.trace.json.gz', bytes: ATTENTION_GZ.length, magic: [0x1f, 0x8b] });
    await popup.close();
    expect(errors).toEqual([]);
  });
});

describe('the Gate card’s ops', () => {
  let capServer: TestServer;
  let capRoom: CreatedRoom;
  let report: GateReport;
  let bo: Person;

  beforeAll(async () => {
    capServer = await startTestServer({ child: true, env: { SEAM_RUNNER: 'on', SEAM_WEB_DIR: WEB_DIST } });
    capRoom = await createRoom(capServer, 'Gate links');
    const auth = { authorization: `Bearer ${capRoom.tokens.owner}` };
    await waitFor(async () => ((await (await fetch(`${capServer.url}/api/rooms/${capRoom.id}/runners`, { headers: auth })).json()) as { runners: unknown[] }).runners.length > 0, 'the local runner', 120_000);
    const spec = { shape: [512, 128], dtype: 'bfloat16' };
    const res = await fetch(`${capServer.url}/api/rooms/${capRoom.id}/captures`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ program: ATTENTION, entry: 'attention', args: [spec, spec, spec], capture: ['hlo-opt', 'trace'], options: { xlaFlags: '--xla_cpu_experimental_ynn_fusion_type=', repeats: 2 } }),
    });
    expect(res.status).toBe(202);
    const { job } = (await res.json()) as { job: CaptureEntry };
    let status = job.status;
    await waitFor(async () => {
      status = ((await (await fetch(`${capServer.url}/api/rooms/${capRoom.id}/captures/${job.id}`, { headers: auth })).json()) as { job: CaptureEntry }).job.status;
      return ['done', 'failed', 'cancelled'].includes(status);
    }, 'the capture', 300_000);
    expect(status).toBe('done');
    const gate = await fetch(`${capServer.url}/api/rooms/${capRoom.id}/captures/${job.id}/gate`, { headers: auth });
    expect(gate.status, await gate.clone().text()).toBe(200);
    report = (await gate.json()) as GateReport;
  }, 400_000);

  afterAll(async () => {
    await capServer?.close();
  });

  it('opens the optimized HLO at the line of an op named in the Gate card', async () => {
    bo = await openAs(browser, capRoom.links.owner, 'Bo', errors);
    const page = bo.page;
    await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /HLO·opt/ }).first().click();
    await page.getByRole('tab', { name: 'Spills' }).click();
    const ops = page.getByRole('region', { name: 'Gate' }).getByRole('table', { name: 'Gate ops' });
    const last = report.gate.ops.filter((o) => o.line !== undefined).at(-1)!;
    await ops.getByRole('button', { name: last.op, exact: true }).click();
    const escaped = last.op.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    await expect.poll(async () => (await page.locator('.cm-activeLine').textContent()) ?? '', { timeout: 15_000 }).toMatch(new RegExp(`^\\s*(ROOT )?%${escaped} = `));
    await page.screenshot({ path: '/tmp/trace-links-gate-op.png' });
    expect(errors).toEqual([]);
  }, 60_000);
});
