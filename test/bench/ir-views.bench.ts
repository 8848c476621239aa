import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { addDocument, createRoom } from '../helpers/server';
import { openBareCodeMirror } from './bare-codemirror';
import { personContext } from './room-browser';
import { FRAME_HEADER, FRAME_RECORDER, WHEEL, frameRows, joinSamples, jumpScroll, lateLine, loafLine, mainLine, openFloor, wheelScroll, type FrameSample } from './scroll-frames';
import { printTable, quantile } from './table';

/**
 * IR views on a 20 MB optimized HLO dump in headless Chromium, highlighting and overlays on
 * (syntax, folding, outline, badges, uses, hover): time to interactive, scroll frames, and
 * hover-to-highlight latency across three panes (the MLP's jaxpr and StableHLO beside the large
 * dump). Goals: TTI ≤ 2 s, scroll p95 ≤ 16.7 ms, hover-to-highlight ≤ 50 ms. The dump comes from
 * runners/python/gen_large_hlo.py (a 32-layer transformer training step), cached in the OS temp dir.
 * Scrolling is measured in two modes (see `scroll-frames.ts`): a jump of 2,400 px per frame from
 * top to bottom, and wheel flicks sent as real input; against three floors scrolled the same way: the
 * same lines as plain text in the app's editor, CodeMirror alone with line numbers, and a page that
 * virtualizes them itself. `SEAM_WEB_DIR`
 * serves another build of the app; `SEAM_BENCH_TTI_ONLY=1` measures time to interactive alone (10 loads).
 */
const MIN_BYTES = 20_000_000;
/** The floors, each in a fresh context: the page that draws its own divs, and CodeMirror alone. */
const FLOORS = [['floor', openFloor, '#floor'], ['bare', openBareCodeMirror, '.cm-scroller']] as const;
const STEP_PX = 2_400;
const HOVERS = 40;
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (p: string) => readFileSync(join(repo, 'test', 'fixtures', 'ir', 'mlp', p), 'utf8');

function ensureDump(): string {
  const path = join(tmpdir(), 'seam-ir-views-bench', 'large-hlo-opt.txt');
  if (existsSync(path) && statSync(path).size >= MIN_BYTES) return path;
  mkdirSync(join(tmpdir(), 'seam-ir-views-bench'), { recursive: true });
  console.log(`generating ${path} with runners/python/gen_large_hlo.py (about a minute)`);
  const run = spawnSync(join(repo, 'runners', '.venv', 'bin', 'python'), [join(repo, 'runners', 'python', 'gen_large_hlo.py'), path], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new Error(`gen_large_hlo.py exited with ${run.status ?? run.signal}`);
  return path;
}

/** In the page: true once a highlighted token is on screen (a marked span, or a token painted as a CSS highlight). */
const TOKEN_ON_SCREEN = `(document.querySelector('.cm-content .cm-line span[class]') !== null || [...CSS.highlights.values()].some((h) => h.size > 0))`;

/** Runs in the page: until the text, its highlighting and the analysis (outline) are there; returns ms since navigation. */
const INTERACTIVE = `(() => {
  const line = ${TOKEN_ON_SCREEN};
  const outline = document.querySelector('nav[aria-label="Outline"] li');
  return line && outline ? performance.now() : null;
})()`;

/** Runs before the app: notes, each frame, when a highlighted token and when the outline were first on screen. */
const TTI_PARTS = `window.__ttiParts = {};
(function poll() {
  const p = window.__ttiParts;
  p.text ??= ${TOKEN_ON_SCREEN} ? performance.now() : undefined;
  p.outline ??= document.querySelector('nav[aria-label="Outline"] li') ? performance.now() : undefined;
  if (p.text === undefined || p.outline === undefined) requestAnimationFrame(poll);
})();`;

/** Page loads that measure time to interactive only, beside the 3 runs that go on to scroll and hover. */
const TTI_ONLY_RUNS = 7;
/** `SEAM_BENCH_TTI_ONLY=1`: 10 loads for time to interactive, no scrolling or hovering. */
const TTI_ONLY = process.env.SEAM_BENCH_TTI_ONLY === '1';
const FULL_RUNS = TTI_ONLY ? 0 : 3;

/** Runs before the app: records long tasks (main-thread work over 50 ms) as [start, duration]. */
const LONG_TASKS = `window.__longTasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });`;

/** Runs in the page: the long tasks so far, and forgets them. */
const TAKE_LONG_TASKS = `(() => { const t = window.__longTasks; window.__longTasks = []; return t; })()`;


/** Page-side helpers of the split-view scripts below: a pane by title, a line of it by text, and a pointer move over a line. */
const PANE_HELPERS = `
  const pane = (t) => document.querySelector('[aria-label="Pane: ' + t + '"]');
  const lineWith = (root, text) => [...root.querySelectorAll('.cm-line')].find((l) => l.textContent.includes(text));
  const pointAt = (line) => {
    const r = line.getBoundingClientRect();
    line.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.left + 20, clientY: r.top + r.height / 2 }));
  };`;

/**
 * Runs in the page right after Split view was clicked (at `window.__splitAt`): every frame, moves
 * the pointer over the jaxpr `dot_general` equation once its pane draws it, until the StableHLO pane
 * lights up a counterpart; returns ms from the click. The first link waits for the three analyses,
 * their cross-layer keys (12 MB for the large dump) and the worker's join. It leaves the pointer on
 * `dot_general`, so `HOVER` starts on another equation (a move that lights up nothing new is never
 * answered).
 */
const FIRST_LINK = `new Promise((resolve) => {${PANE_HELPERS}
  const step = () => {
    const j = pane('mlp.jaxpr');
    const s = pane('mlp.stablehlo');
    if (s && s.querySelector('.cm-line.cm-ir-linked')) return resolve(performance.now() - window.__splitAt);
    const target = j && lineWith(j, '= dot_general[');
    if (target) pointAt(target);
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`;

/** Runs in the page: moves the pointer over two jaxpr equations in turn, `reduce_sum` first; per move, ms until the StableHLO pane's highlight changed. */
const HOVER = `(async () => {${PANE_HELPERS}
  const j = pane('mlp.jaxpr');
  const s = pane('mlp.stablehlo');
  const linked = () => [...s.querySelectorAll('.cm-line.cm-ir-linked')].map((l) => l.textContent).join('\\n');
  const out = [];
  for (let i = 0; i < ${HOVERS}; i++) {
    const target = lineWith(j, i % 2 ? '= dot_general[' : '= reduce_sum[');
    const before = linked();
    await new Promise((res) => setTimeout(res, 30));
    const t0 = performance.now();
    pointAt(target);
    await new Promise((res) => {
      const check = () => (linked() !== before ? res() : requestAnimationFrame(check));
      requestAnimationFrame(check);
    });
    out.push(performance.now() - t0);
  }
  return out;
})()`;

const path = ensureDump();
const text = readFileSync(path, 'utf8');
const server = await startWebServer(process.env.SEAM_WEB_DIR ? { SEAM_WEB_DIR: process.env.SEAM_WEB_DIR } : {});
const browser = await launchBrowser();
try {
  const room = await createRoom(server, 'bench: IR views');
  const t = performance.now();
  await addDocument(server, room.id, room.tokens.owner, 'large.hlo-opt', text);
  const ingest = performance.now() - t;
  await addDocument(server, room.id, room.tokens.owner, 'mlp.jaxpr', fixture('jaxpr.txt'));
  await addDocument(server, room.id, room.tokens.owner, 'mlp.stablehlo', fixture('stablehlo-debug.mlir'));
  // The same lines behind `> `, which no IR rule recognizes: a plain text, for the renderer's own floor.
  await addDocument(server, room.id, room.tokens.owner, 'large-plain.txt', text.replace(/^/gm, '> '));

  const tti: number[] = [];
  const ttiText: number[] = [];
  const ttiOutline: number[] = [];
  /** Loads the room in `context` until interactive; keeps its time and when the text and the outline came. */
  const interactive = async (context: BrowserContext): Promise<Page> => {
    await context.addInitScript(TTI_PARTS);
    const page = await context.newPage();
    await page.goto(room.links.viewer);
    const handle = await page.waitForFunction(INTERACTIVE, undefined, { timeout: 120_000, polling: 'raf' });
    tti.push((await handle.jsonValue()) as number);
    const parts = (await page.evaluate('window.__ttiParts')) as { text: number; outline: number };
    ttiText.push(parts.text);
    ttiOutline.push(parts.outline);
    return page;
  };
  for (let run = 0; run < TTI_ONLY_RUNS + (TTI_ONLY ? 3 : 0); run++) {
    const context = await personContext(browser, `Ann${run}`);
    await interactive(context);
    await context.close();
  }
  const hovers: number[] = [];
  const firstLinks: number[] = [];
  const longLoad: number[] = [];
  const longScroll: number[] = [];
  const scrolls = new Map<string, FrameSample[]>();
  const keep = (id: string, s: FrameSample) => scrolls.set(id, [...(scrolls.get(id) ?? []), s]);
  for (let run = 0; run < FULL_RUNS; run++) {
    const context = await personContext(browser, `Bo${run}`);
    await context.addInitScript(LONG_TASKS);
    await context.addInitScript(FRAME_RECORDER);
    const page = await interactive(context);
    longLoad.push(...((await page.evaluate(TAKE_LONG_TASKS)) as Array<[number, number]>).map(([, d]) => d));
    keep('ir jump', await jumpScroll(page, '.cm-scroller', STEP_PX));
    longScroll.push(...((await page.evaluate(TAKE_LONG_TASKS)) as Array<[number, number]>).map(([, d]) => d));
    await page.getByRole('button', { name: /large-plain\.txt/ }).click();
    await page.locator('.cm-content .cm-line', { hasText: '> HloModule' }).first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500);
    // Wheel first, in the fresh editor: after a jump to the bottom its height map holds every line.
    keep('plain wheel', await wheelScroll(page, '.cm-scroller'));
    keep('plain jump', await jumpScroll(page, '.cm-scroller', STEP_PX));
    // Opening the dump again makes a new editor: the wheel meets lines it has never tokenized.
    await page.getByRole('button', { name: /large\.hlo-opt/ }).click();
    await page.locator('.cm-content .cm-line', { hasText: 'HloModule' }).first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500);
    keep('ir wheel', await wheelScroll(page, '.cm-scroller'));
    await page.evaluate('window.__splitAt = performance.now()');
    await page.getByRole('button', { name: 'Split view' }).click();
    firstLinks.push((await page.evaluate(FIRST_LINK)) as number);
    for (const title of ['mlp.jaxpr', 'mlp.stablehlo', 'large.hlo-opt']) await page.locator(`[aria-label="Pane: ${title}"] .cm-line`).first().waitFor({ timeout: 60_000 });
    await page.locator('[aria-label="Pane: mlp.jaxpr"] .cm-line', { hasText: '= dot_general[' }).waitFor();
    await page.waitForTimeout(500);
    hovers.push(...((await page.evaluate(HOVER)) as number[]));
    await context.close();
    for (const [key, open, selector] of FLOORS) {
      const floor = await personContext(browser, `Floor${run}`);
      await floor.addInitScript(FRAME_RECORDER);
      const floorPage = await floor.newPage();
      await open(floorPage, text);
      keep(`${key} jump`, await jumpScroll(floorPage, selector, STEP_PX));
      keep(`${key} wheel`, await wheelScroll(floorPage, selector));
      await floor.close();
    }
  }
  console.log(`dump: ${path}, ${(text.length / 1e6).toFixed(1)} MB, ${text.split('\n').length.toLocaleString('en-US')} lines; upload and index ${(ingest / 1000).toFixed(1)} s`);
  const row = (name: string, v: number[], goal: number) => [name, v.length, quantile(v, 0.5), quantile(v, 0.95), Math.max(...v), goal, quantile(v, 0.95) / goal];
  printTable(`IR views on a 20 MB optimized HLO dump, ${FULL_RUNS} runs (time to interactive: ${tti.length} loads) (ms)`, ['measure', 'n', 'p50', 'p95', 'max', 'goal', 'p95 / goal'], [
    row('time to interactive (text, highlighting, outline)', tti, 2000),
    row('  of which: highlighted text on screen', ttiText, 2000),
    row('  of which: outline filled from the analysis', ttiOutline, 2000),
    ...(TTI_ONLY ? [] : [row('hover to highlight, three panes', hovers, 50)]),
  ]);
  if (TTI_ONLY) {
    console.log(`load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)}`);
  } else {
    const cases = [['floor', 'floor: own virtualized divs'], ['bare', 'floor: CodeMirror alone, line numbers'], ['plain', 'CodeMirror, plain text'], ['ir', 'IR, highlighting and overlays']] as const;
    for (const mode of ['jump', 'wheel'] as const) {
      const of = (key: string) => joinSamples(scrolls.get(`${key} ${mode}`) ?? []);
      const how = mode === 'jump' ? `top to bottom, ${STEP_PX} px per frame` : `wheel, ${WHEEL.segments} places × ${WHEEL.frames} frames, ${WHEEL.notches} × ${WHEEL.notchPx} px per frame`;
      printTable(`Scroll, ${how}, 3 runs (ms; p95 / floor against the own-divs page)`, FRAME_HEADER, cases.flatMap(([k, name]) => frameRows(name, of(k), k === 'floor' ? null : of('floor'))));
      for (const [k, name] of cases) console.log(mainLine(`${mode}, ${name}`, of(k)));
      for (const [k, name] of cases) console.log(lateLine(`${mode}, ${name}`, of(k)));
      for (const [k, name] of cases) console.log(loafLine(`${mode}, ${name}`, of(k)));
    }
    console.log(`first counterpart after clicking Split view (ms, per run): ${firstLinks.map((v) => Math.round(v)).join(', ')}`);
    const sum = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0));
    console.log(`long tasks until interactive: ${longLoad.length} in 3 runs, ${sum(longLoad)} ms in all, longest ${Math.round(Math.max(0, ...longLoad))} ms`);
    console.log(`long tasks while jump-scrolling the IR dump: ${longScroll.length} in 3 runs, ${sum(longScroll)} ms in all, longest ${Math.round(Math.max(0, ...longScroll))} ms`);
    console.log(`load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)} on this machine's CPUs, shared with other work`);
  }
} finally {
  await browser.close();
  await server.close();
}
