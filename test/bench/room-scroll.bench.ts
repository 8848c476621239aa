import * as Y from 'yjs';
import { addAnnotation, quoteOf, type Annotation } from '@seam/shared/model';
import { loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { addDocument, createRoom } from '../helpers/server';
import { connectClient, waitFor } from '../helpers/sync-client';
import { openBareCodeMirror } from './bare-codemirror';
import { printTable } from './table';
import { openSyntheticDump, personContext, syntheticDump } from './room-browser';
import { FRAME_HEADER, FRAME_RECORDER, WHEEL, frameRows, joinSamples, jumpScroll, lateLine, loafLine, mainLine, openFloor, wheelScroll, type FrameSample } from './scroll-frames';

/**
 * Browser room, scrolling a 200,000-line dump with 5,000 annotations in headless Chromium, in two
 * modes: a jump of 2,400 px per frame from top to bottom (a scrollbar thumb dragged fast: every
 * frame shows lines never shown before), and wheel flicks sent as real input (40 places spread over
 * the dump, 60 frames each, 3 notches of 120 px per frame). Per frame: the rAF interval and the
 * frame work (see `FRAME_RECORDER`). Goal p95 ≤ 16.7 ms. Floors, scrolled the same way: a page
 * that virtualizes the same lines itself (no CodeMirror), the same page drawing every token as a
 * coloured span (what colour costs without CodeMirror), CodeMirror alone with line numbers (no
 * app), and the app's editor with the lines as plain text; the reference is the same HLO text without annotations. `SEAM_BENCH_ROUNDS` (default 2)
 * sets how many times each case runs, alternating; `SEAM_WEB_DIR` serves another build of the app;
 * `SEAM_BENCH_CASES` and `SEAM_BENCH_MODES` pick cases and modes.
 */
const LINES = 200_000;
const ANNOTATIONS = 5_000;
const STEP_PX = 2_400;
const ROUNDS = Number(process.env.SEAM_BENCH_ROUNDS ?? 2);

const ALL_CASES = [
  { key: 'floor', name: 'floor: own virtualized divs' },
  { key: 'floor.coloured', name: 'own virtualized divs, tokens as coloured spans' },
  { key: 'bare', name: 'floor: CodeMirror alone, line numbers' },
  { key: 'plain.txt', name: 'CodeMirror, plain text' },
  { key: 'plain.hlo', name: 'HLO, no annotations (reference)' },
  { key: 'annotated.hlo', name: `HLO, ${ANNOTATIONS.toLocaleString('en-US')} annotations` },
] as const;
/** `SEAM_BENCH_CASES=plain.hlo,floor` runs only those cases (keys above); `SEAM_BENCH_MODES=wheel` only that mode. */
const CASES = ALL_CASES.filter((c) => !process.env.SEAM_BENCH_CASES || process.env.SEAM_BENCH_CASES.split(',').includes(c.key));
const MODES = (['jump', 'wheel'] as const).filter((m) => !process.env.SEAM_BENCH_MODES || process.env.SEAM_BENCH_MODES.split(',').includes(m));

const server = await startWebServer(process.env.SEAM_WEB_DIR ? { SEAM_WEB_DIR: process.env.SEAM_WEB_DIR } : {});
const browser = await launchBrowser();
try {
  const text = syntheticDump(LINES);
  const room = await createRoom(server, 'bench: scroll');
  await addDocument(server, room.id, room.tokens.owner, 'plain.hlo', `${text}\n`);
  // The same lines behind `> `, which no IR rule recognizes: CodeMirror's plain-text floor.
  await addDocument(server, room.id, room.tokens.owner, 'plain.txt', text.replace(/^/gm, '> '));
  const annotatedId = await addDocument(server, room.id, room.tokens.owner, 'annotated.hlo', text);
  await annotate(room.id, room.tokens.owner, annotatedId, text);

  /** Opens a fresh context on one case and scrolls it in one mode. */
  const scroll = async (key: (typeof ALL_CASES)[number]['key'], mode: (typeof MODES)[number]): Promise<FrameSample> => {
    const context = await personContext(browser, 'Bo');
    await context.addInitScript(FRAME_RECORDER);
    const page = await context.newPage();
    try {
      const selector = key.startsWith('floor') ? '#floor' : '.cm-scroller';
      if (key.startsWith('floor')) await openFloor(page, text, key === 'floor.coloured');
      else if (key === 'bare') await openBareCodeMirror(page, text);
      else await openDump(page, room.links.viewer, key);
      return mode === 'jump' ? await jumpScroll(page, selector, STEP_PX) : await wheelScroll(page, selector);
    } finally {
      await context.close();
    }
  };

  const runs = new Map<string, FrameSample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      for (const c of CASES) {
        const id = `${c.key} ${mode}`;
        runs.set(id, [...(runs.get(id) ?? []), await scroll(c.key, mode)]);
      }
    }
  }
  for (const mode of MODES) {
    const of = (key: string) => joinSamples(runs.get(`${key} ${mode}`) ?? []);
    const floor = of('floor');
    const how = mode === 'jump' ? `top to bottom, ${STEP_PX} px per frame` : `wheel, ${WHEEL.segments} places × ${WHEEL.frames} frames, ${WHEEL.notches} × ${WHEEL.notchPx} px per frame`;
    printTable(`Scroll ${LINES.toLocaleString('en-US')} lines, ${how}, ${ROUNDS} runs each (ms; p95 / floor against the own-divs page)`, FRAME_HEADER, CASES.flatMap((c) => frameRows(c.name, of(c.key), c.key === 'floor' ? null : floor)));
    for (const c of CASES) console.log(mainLine(`${mode}, ${c.name}`, of(c.key)));
    for (const c of CASES) console.log(lateLine(`${mode}, ${c.name}`, of(c.key)));
    for (const c of CASES) console.log(loafLine(`${mode}, ${c.name}`, of(c.key)));
  }
  console.log(`load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)} on this machine's CPUs, shared with other work`);
} finally {
  await browser.close();
  await server.close();
}

/** Opens the room at `url` and the dump titled `title`, and waits until its first line (and, annotated, a mark) is drawn. */
async function openDump(page: Page, url: string, title: string): Promise<void> {
  await openSyntheticDump(page, url, title);
  if (title === 'annotated.hlo') await page.locator('.cm-ann').first().waitFor();
}

/** Adds the annotations, spread evenly over the lines, as a real client, and waits until they are durable. */
async function annotate(roomId: string, token: string, docId: string, text: string): Promise<void> {
  const client = connectClient(server, roomId, token, { ack: true });
  await client.synced();
  const lineStarts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const author = { id: 'bench', name: 'Bench', color: '#e03131' };
  const kinds = ['fusion', 'spill', 'note', 'question'] as const;
  for (let batch = 0; batch < ANNOTATIONS; batch += 250) {
    client.doc.transact(() => {
      for (let i = batch; i < batch + 250; i++) {
        const from = (lineStarts[Math.floor((i * LINES) / ANNOTATIONS)] ?? 0) + 2;
        const a: Annotation = {
          id: `a${i}`, docId, from, to: from + 12, quote: quoteOf(text, from, from + 12), kind: kinds[i % 4] ?? 'note',
          body: `annotation ${i}`, author, createdAt: i, resolved: i % 7 === 0, replies: [],
        };
        addAnnotation(client.doc, a);
      }
    });
    await new Promise((r) => setTimeout(r, 20));
  }
  const clock = Y.getState(client.doc.store, client.doc.clientID);
  await waitFor(() => client.acks.some((a) => a.entries.some((e) => e.clientID === client.doc.clientID && e.clock >= clock)), 'annotations to be durable', 60_000);
  client.destroy();
}
