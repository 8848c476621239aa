import { loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { addDocument, createRoom } from '../helpers/server';
import { connectClient, type TestClient } from '../helpers/sync-client';
import { openSyntheticDump, personContext, syntheticDump } from './room-browser';
import { FRAME_HEADER, FRAME_RECORDER, frameRows, joinSamples, lateLine, loafLine, mainLine, wheelScroll, type FrameSample } from './scroll-frames';
import { printTable } from './table';

/**
 * Browser room, a live session: one person flicks through a 200,000-line HLO dump (wheel mode of
 * the scroll bench) while `SEAM_BENCH_PEOPLE` others (default 40, a class) move their carets
 * `SEAM_BENCH_CARET_HZ` times a second each (default 2), every caret within the lines on that
 * person's screen. Reference: the same scroll with nobody else in the room. Goal p95 ≤ 16.7 ms, as
 * for scrolling alone. The scrolled page is polled for its position every 100 ms in both cases.
 * `SEAM_WEB_DIR` serves another build of the app.
 */
const LINES = 200_000;
const PEOPLE = Number(process.env.SEAM_BENCH_PEOPLE ?? 40);
const CARET_HZ = Number(process.env.SEAM_BENCH_CARET_HZ ?? 2);
const ROUNDS = Number(process.env.SEAM_BENCH_ROUNDS ?? 2);
const LINE_BYTES = 101;
const WHEEL_PLAN = { segments: 20, frames: 60, notches: 3, notchPx: 120 };

// Each stock provider adds an exit listener to the process.
process.setMaxListeners(PEOPLE + 10);
const server = await startWebServer(process.env.SEAM_WEB_DIR ? { SEAM_WEB_DIR: process.env.SEAM_WEB_DIR } : {});
const browser = await launchBrowser();
try {
  const text = syntheticDump(LINES);
  const room = await createRoom(server, 'bench: presence');
  const docId = await addDocument(server, room.id, room.tokens.owner, 'plain.hlo', `${text}\n`);

  /** Scrolls with `people` others moving their carets on the scroller's screen. */
  const scroll = async (people: number): Promise<FrameSample> => {
    const others = Array.from({ length: people }, () => connectClient(server, room.id, room.tokens.viewer));
    await Promise.all(others.map((c) => c.synced()));
    const context = await personContext(browser, 'Bo');
    await context.addInitScript(FRAME_RECORDER);
    const page = await context.newPage();
    let topLine = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        topLine = await lineOnTop(page).catch(() => topLine);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const moves = setInterval(() => moveCarets(others, docId, topLine), 1000 / CARET_HZ);
    try {
      moveCarets(others, docId, topLine);
      await openSyntheticDump(page, room.links.viewer, 'plain.hlo');
      return await wheelScroll(page, '.cm-scroller', WHEEL_PLAN);
    } finally {
      clearInterval(moves);
      watching = false;
      await watch;
      await context.close();
      for (const c of others) c.destroy();
    }
  };

  const alone: FrameSample[] = [];
  const shared: FrameSample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    alone.push(await scroll(0));
    shared.push(await scroll(PEOPLE));
  }
  const a = joinSamples(alone);
  const s = joinSamples(shared);
  const name = `${PEOPLE} others moving carets (${CARET_HZ}/s each)`;
  printTable(
    `Wheel scroll of ${LINES.toLocaleString('en-US')} HLO lines, ${WHEEL_PLAN.segments} places × ${WHEEL_PLAN.frames} frames, ${ROUNDS} runs each (ms; p95 / floor against scrolling alone)`,
    FRAME_HEADER,
    [...frameRows('alone (reference)', a, null), ...frameRows(name, s, a)],
  );
  for (const [n, x] of [['alone', a], [name, s]] as const) console.log(lateLine(n, x));
  for (const [n, x] of [['alone', a], [name, s]] as const) console.log(mainLine(n, x));
  for (const [n, x] of [['alone', a], [name, s]] as const) console.log(loafLine(n, x));
  console.log(`load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)} on this machine's CPUs, shared with other work`);
} finally {
  await browser.close();
  await server.close();
}

/** The first line shown in the page's dump view (1-based; lines of the synthetic dump are all one height). */
async function lineOnTop(page: Page): Promise<number> {
  return (await page.evaluate(`(() => {
    const s = document.querySelector('.cm-scroller');
    const line = document.querySelector('.cm-line');
    return s && line ? Math.floor(s.scrollTop / line.getBoundingClientRect().height) : 0;
  })()`)) as number;
}

/** Puts each person's caret somewhere on the screen that starts at `topLine` (40 lines tall), as a class reading along. */
function moveCarets(people: readonly TestClient[], docId: string, topLine: number): void {
  people.forEach((c, i) => {
    const line = topLine + Math.floor(Math.random() * 40);
    const at = line * LINE_BYTES + (i % 60);
    c.provider.awareness.setLocalState({
      user: { id: `person-${i}`, name: `Person ${i}`, color: '#2f9e44' }, role: 'viewer', docId, dumpSel: { docId, anchor: at, head: at }, view: null, spotlight: null,
    });
  });
}
