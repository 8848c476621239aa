import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { OpAggregate } from '@seam/shared/trace';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom } from '../helpers/server';
import { personContext } from './room-browser';
import { FRAME_RECORDER, joinSamples, lateLine, loafLine, mainLine, withMainThread, type FrameSample } from './scroll-frames';
import { printTable, quantile } from './table';
import { cpuProfile, topSelfTime } from './cpu-profile';
import { writeTrace } from './trace-gen';

/**
 * `npm run bench trace`, the trace view: the generated trace of 10⁶ events (see `trace-gen.ts`)
 * uploaded as an xplane.pb to a real server, then opened in headless Chromium. Measured: time to
 * the first frame with events on the timeline canvas (the view marks `seam:trace-drawn` when it
 * first draws events; the frame is the next one after it), from navigation to a room whose first
 * document (the one a room opens) is the trace, and from the click on the trace in a second room
 * already open at a small dump (the first of the first room's loads includes the server's first
 * reading of the trace's overview); pan/zoom frames while wheel zooms and drag pans go in as real input at 60 per
 * second (rAF intervals and frame work, as `scroll-frames.ts` records them); and op-table sorts,
 * a header clicked with the mouse, from the click to the frame after the rows changed, checked
 * against the order the trace's ops sort to. Goals: first paint ≤ 1.5 s, pan/zoom p95 ≤ 16.7 ms,
 * sort ≤ 50 ms. `SEAM_BENCH_PROFILE=1` adds CPU profiles of one pan/zoom round and one sort round (top self time).
 */
const EVENTS = Number(process.env.BENCH_TRACE_EVENTS ?? 1_000_000);
const LOADS = 5;
const ROUNDS = 3;
/** Per pan/zoom round: frames of wheel zoom in, of drag pan, of wheel zoom out. */
const PHASE_FRAMES = 40;
const FRAME_MS = 1000 / 60;
const GOALS = { paint: 1500, frame: 16.7, sort: 50 };

/** Runs before the app: `window.__drawn` resolves with when the view marked its first drawn events and when the next frame ended; clicks' times are kept. */
const DRAWN_WATCH = `window.__drawn = new Promise((resolve) => {
  new PerformanceObserver((list, obs) => {
    const e = list.getEntries().find((m) => m.name === 'seam:trace-drawn');
    if (!e) return;
    obs.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      const requests = performance.getEntriesByType('resource').filter((r) => r.name.includes('/trace/') || /[/]api[/]rooms[/][^/]+$/.test(r.name))
        .map((r) => [r.name.includes('/trace/') ? r.name.split('/trace/')[1].split('?')[0] : 'room', r.startTime, r.responseStart, r.responseEnd, r.encodedBodySize]);
      ch.port1.onmessage = () => resolve({ mark: e.startTime, frame: performance.now(), click: window.__clickAt ?? 0, requests });
      ch.port2.postMessage(0);
    });
  }).observe({ type: 'mark' });
});
document.addEventListener('click', (e) => { window.__clickAt = e.timeStamp; }, true);`;

/**
 * In the page: arms `window.__sorted`, which resolves after the next click with the click's time, the
 * end of the frame after the table changed (its header's sort marks, its rows), and the first rows' ops.
 */
const ARM_SORT = `(() => {
  const table = document.querySelector('section[aria-label="Op table"] table');
  window.__sorted = new Promise((resolve) => {
    let t0 = 0;
    document.addEventListener('click', (e) => { t0 = e.timeStamp; }, { capture: true, once: true });
    const done = (changed) => resolve({ t0, t1: performance.now(), changed, ops: [...table.querySelectorAll('tbody tr td:first-child')].slice(0, 20).map((td) => td.textContent) });
    const timer = setTimeout(() => { mo.disconnect(); done(false); }, 5000);
    const mo = new MutationObserver(() => {
      mo.disconnect();
      clearTimeout(timer);
      requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => done(true); ch.port2.postMessage(0); });
    });
    mo.observe(table, { childList: true, subtree: true, characterData: true, attributes: true });
  });
})()`;

type SortKey = 'op' | 'module' | 'count' | 'totalUs' | 'meanUs';
/** Header buttons clicked in turn; each twice in a row (the second click turns the order round). */
const SORTS: ReadonlyArray<{ key: SortKey; label: RegExp; firstDescending: boolean }> = [
  { key: 'count', label: /^Count/, firstDescending: true },
  { key: 'meanUs', label: /^Mean/, firstDescending: true },
  { key: 'op', label: /^HLO op/, firstDescending: false },
  { key: 'module', label: /^Module/, firstDescending: false },
  { key: 'totalUs', label: /^Total/, firstDescending: true },
];

/** The ops the table shows first when sorted by `key` (as op-rows.ts `viewRows` sorts: ties keep the longest total first). */
function expectedOrder(ops: readonly OpAggregate[], key: SortKey, descending: boolean): string[] {
  const dir = descending ? -1 : 1;
  return [...ops].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    const c = typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number);
    return c !== 0 ? c * dir : b.totalUs - a.totalUs;
  }).slice(0, 20).map((o) => o.op);
}

const dir = mkdtempSync(join(tmpdir(), 'seam-bench-trace-view-'));
const xplanePath = join(dir, 'trace.xplane.pb');
const t = performance.now();
await writeTrace(EVENTS, join(dir, 'trace.json'), xplanePath);
console.log(`generated ${EVENTS.toLocaleString('en-US')} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const loadBefore = loadavg();

const server = await startWebServer();
const browser = await launchBrowser();
try {
  const room = await createRoom(server, 'bench: trace view');
  const clickRoom = await createRoom(server, 'bench: trace view, opened by a click');
  await addDocument(server, clickRoom.id, clickRoom.tokens.owner, 'notes.hlo', 'HloModule notes\n\nENTRY main {\n  ROOT p = f32[8]{0} parameter(0)\n}\n');
  const docId = await uploadTrace(room);
  await uploadTrace(clickRoom);
  rmSync(dir, { recursive: true, force: true });
  const ops = (await (await fetch(`${server.url}/api/rooms/${room.id}/documents/${docId}/trace/ops`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as OpAggregate[];

  const paints: Array<{ fromNav: number; fromClick: number; parts: string }> = [];
  const sorts: Array<{ what: string; ms: number; ok: boolean }> = [];
  const frames: FrameSample[] = [];
  let profile: string[] = [];
  for (let load = 0; load < LOADS; load++) {
    const nav = await openTrace(browser, room.links.viewer, false);
    let fromNav: Drawn;
    try {
      fromNav = await drawnOn(nav.page);
      if (load === 0) {
        const page = nav.page;
        await page.locator('section[aria-label="Op table"] tbody tr').first().waitFor();
        for (let round = 0; round < ROUNDS; round++) sorts.push(...(await sortRound(page, ops)));
        for (let round = 0; round < ROUNDS; round++) frames.push(await withMainThread(page, () => panZoomRound(page, round)));
        if (process.env.SEAM_BENCH_PROFILE === '1') {
          profile = ['pan/zoom round:', ...topSelfTime(await cpuProfile(page, () => panZoomRound(page, 0)), 15)];
          profile.push('op-table sort round:', ...topSelfTime(await cpuProfile(page, () => sortRound(page, ops)), 15));
        }
      }
    } finally {
      await nav.close();
    }
    const click = await openTrace(browser, clickRoom.links.viewer, true);
    try {
      const d = await drawnOn(click.page);
      paints.push({ fromNav: fromNav.frame, fromClick: d.frame - d.click, parts: `from navigation: ${parts(fromNav, 0)}; from the click at ${d.click.toFixed(0)} ms: ${parts(d, d.click)}` });
    } finally {
      await click.close();
    }
  }

  const f = joinSamples(frames);
  // Only sorts that showed the expected order count (a click that missed its header shows none).
  const sortMs = sorts.filter((s) => s.ok).map((s) => s.ms);
  const row = (what: string, n: number, values: number[], goal: number) => {
    const p95 = quantile(values, 0.95);
    return [what, n, quantile(values, 0.5), p95, Math.max(...values), goal, p95 / goal];
  };
  const loadAfter = loadavg();
  printTable(`Trace view, ${EVENTS.toLocaleString('en-US')} events, headless Chromium (ms; ${cpus().length} cores, load ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after)`,
    ['what', 'n', 'p50', 'p95', 'max', 'goal', 'p95 / goal'],
    [
      row('first timeline paint, from navigation to the room', paints.length, paints.map((p) => p.fromNav), GOALS.paint),
      row('first timeline paint, from the click on the trace', paints.length, paints.map((p) => p.fromClick), GOALS.paint),
      row('pan/zoom: rAF interval', f.intervals.length, f.intervals, GOALS.frame),
      row('pan/zoom: frame work', f.work.length, f.work, GOALS.frame),
      row('op-table sort, click to re-sorted frame', sortMs.length, sortMs, GOALS.sort),
    ]);
  for (const [i, p] of paints.entries()) console.log(`load ${i + 1} (ms, request sent→first byte→last byte): ${p.parts}`);
  console.log(lateLine('pan/zoom', f));
  console.log(mainLine('pan/zoom', f));
  console.log(loafLine('pan/zoom', f));
  console.log(`op-table sorts (${ops.length} rows): ${sorts.filter((s) => s.ok).length} of ${sorts.length} showed the expected order; by column p50 ${[...new Set(sorts.map((s) => s.what))].map((w) => `${w} ${quantile(sorts.filter((s) => s.what === w).map((s) => s.ms), 0.5).toFixed(1)}`).join(', ')}`);
  if (profile.length) console.log(`CPU profiles, top self time:\n${profile.join('\n')}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

/** What `window.__drawn` resolves with: the mark, the frame after it, the click (0 for none), the room's and trace's requests [what, sent, first byte, last byte, bytes]. */
interface Drawn { mark: number; frame: number; click: number; requests: Array<[string, number, number, number, number]> }

/** What `window.__drawn` resolves with on `page`; fails after a minute without a drawn timeline. */
function drawnOn(page: Page): Promise<Drawn> {
  return page.evaluate('Promise.race([window.__drawn, new Promise((_, no) => setTimeout(() => no(new Error("no timeline drawn within 60 s")), 60000))])') as Promise<Drawn>;
}

/** The requests and the draw of one load, in ms from `t0`. */
function parts(d: Drawn, t0: number): string {
  const rel = (v: number) => (v - t0).toFixed(0);
  const requests = d.requests.map(([what, start, first, end, bytes]) => `${what} ${rel(start)}→${rel(first)}→${rel(end)} (${(bytes / 1e6).toFixed(2)} MB)`);
  return `${requests.join(', ')}; drawn ${rel(d.mark)}, frame ${rel(d.frame)}`;
}

/** Uploads the generated trace to `r` as its owner; its document id. */
async function uploadTrace(r: CreatedRoom): Promise<string> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/rooms/${r.id}/documents?title=trace.xplane.pb`, {
    method: 'POST', headers: { authorization: `Bearer ${r.tokens.owner}`, 'content-type': 'application/octet-stream' }, body: readFileSync(xplanePath),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  console.log(`uploaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * A fresh context at the room. With `click`, the trace is clicked once the dump the room opens
 * first shows its text; without, the room opens the trace itself.
 */
async function openTrace(b: Browser, url: string, click: boolean): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await personContext(b, 'Bo');
  await context.addInitScript(FRAME_RECORDER);
  await context.addInitScript(DRAWN_WATCH);
  const page = await context.newPage();
  await page.goto(url);
  if (click) {
    await page.locator('.cm-line', { hasText: 'HloModule' }).first().waitFor();
    await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /trace\.xplane\.pb/ }).click();
  }
  return { page, close: () => context.close() };
}

/** Clicks each sort header twice (both directions), timing each from the click to the frame after the rows changed. */
async function sortRound(page: Page, ops: readonly OpAggregate[]): Promise<Array<{ what: string; ms: number; ok: boolean }>> {
  const out: Array<{ what: string; ms: number; ok: boolean }> = [];
  const table = page.getByRole('region', { name: 'Op table' });
  for (const s of SORTS) {
    for (let click = 0; click < 2; click++) {
      // Where the header is now: a sort may change the columns' widths.
      const box = await table.getByRole('button', { name: s.label }).boundingBox();
      if (!box) throw new Error(`no header ${s.label}`);
      // Whether the column is already the sorted one decides what a click does: read the header's state.
      const sort = await table.locator('th', { has: page.getByRole('button', { name: s.label }) }).getAttribute('aria-sort');
      const willBe = sort === 'none' ? s.firstDescending : sort !== 'descending';
      await page.evaluate(ARM_SORT);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const r = (await page.evaluate('window.__sorted')) as { t0: number; t1: number; changed: boolean; ops: string[] };
      const want = expectedOrder(ops, s.key, willBe);
      out.push({ what: `${s.key} ${willBe ? 'desc' : 'asc'}`, ms: r.t1 - r.t0, ok: r.changed && r.ops.join() === want.join() });
    }
  }
  return out;
}

/**
 * One pan/zoom round as a person works: wheel notches zooming in around a point of the plot, a drag
 * panning the zoomed view, wheel notches zooming back out; one input per frame at 60 per second,
 * sent without waiting for the page (CDP `Input.dispatchMouseEvent`, as `page.mouse` sends them).
 */
async function panZoomRound(page: Page, round: number): Promise<Omit<FrameSample, 'main'>> {
  const canvas = page.locator('canvas[aria-label^="Timeline"]');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no timeline');
  const plotX = box.x + 180;
  const x = Math.round(plotX + ((box.width - 180) * (round + 1)) / (ROUNDS + 1));
  const y = Math.round(box.y + 50);
  await page.mouse.move(x, y);
  const cdp = await page.context().newCDPSession(page);
  try {
    await page.evaluate('window.__frames.start()');
    const t0 = performance.now();
    const sent: Array<Promise<unknown>> = [];
    let frame = 0;
    const pace = async () => {
      frame += 1;
      const wait = t0 + frame * FRAME_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    };
    for (let i = 0; i < PHASE_FRAMES; i++) {
      sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX: 0, deltaY: -120 }));
      await pace();
    }
    sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 }));
    for (let i = 1; i <= PHASE_FRAMES; i++) {
      const dx = (round % 2 === 0 ? -1 : 1) * 12 * i;
      sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: x + dx, y, button: 'left', buttons: 1 }));
      await pace();
    }
    const end = x + (round % 2 === 0 ? -1 : 1) * 12 * PHASE_FRAMES;
    sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: end, y, button: 'left', buttons: 0, clickCount: 1 }));
    for (let i = 0; i < PHASE_FRAMES; i++) {
      sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: end, y, deltaX: 0, deltaY: 120 }));
      await pace();
    }
    await Promise.all(sent);
    return (await page.evaluate('window.__frames.stop()')) as FrameSample;
  } finally {
    await cdp.detach();
  }
}
