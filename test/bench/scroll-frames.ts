import type { CDPSession, Page } from 'playwright-core';
import { quantile } from './table';

/**
 * The scroll part of the browser benchmarks: an in-page frame recorder, the two ways of scrolling
 * (a jump of a whole viewport per frame, and wheel notches sent as real input), and the renderer's
 * floor (a page that virtualizes the same lines itself, without CodeMirror).
 */

/** What one scroll measured: per frame the rAF interval and the frame work, and Chromium's long animation frames. */
export interface FrameSample {
  readonly intervals: number[];
  readonly work: number[];
  /** Per long animation frame (over 50 ms): [duration, before rendering, rendering callbacks, style and layout to the end]. */
  readonly loafs: number[][];
  /** Main-thread time over the scroll from Chromium's `Performance.getMetrics` (ms): tasks, and of them script, style and layout. */
  readonly main: MainThread;
}

/** Main-thread time in ms, as Chromium counts it (wall time of its tasks, so it includes waiting for a busy CPU). */
export interface MainThread {
  readonly task: number;
  readonly script: number;
  readonly style: number;
  readonly layout: number;
}

const METRICS = { task: 'TaskDuration', script: 'ScriptDuration', style: 'RecalcStyleDuration', layout: 'LayoutDuration' } as const;

/** Runs `scroll` and adds the main-thread time Chromium counted meanwhile. */
export async function withMainThread(page: Page, scroll: () => Promise<Omit<FrameSample, 'main'>>): Promise<FrameSample> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Performance.enable');
    const read = async () => new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const before = await read();
    const sample = await scroll();
    const after = await read();
    const ms = (k: string) => 1000 * ((after.get(k) ?? 0) - (before.get(k) ?? 0));
    return { ...sample, main: { task: ms(METRICS.task), script: ms(METRICS.script), style: ms(METRICS.style), layout: ms(METRICS.layout) } };
  } finally {
    await cdp.detach();
  }
}

/** Wheel scrolling as a person flicks: `notches` notches of `notchPx` per frame, `frames` frames in each of `segments` places spread over the text. */
export interface WheelPlan {
  readonly segments: number;
  readonly frames: number;
  readonly notches: number;
  readonly notchPx: number;
}

/** The default wheel plan: 40 segments of 60 frames, 3 notches of 120 px per frame (a fast flick, 21,600 px per segment). */
export const WHEEL: WheelPlan = { segments: 40, frames: 60, notches: 3, notchPx: 120 };

const FRAME_MS = 1000 / 60;

/**
 * Runs before any page script (`context.addInitScript`): `window.__frames.start()` records, until
 * `stop()`, every rAF interval, the frame work (from the rAF callback to a message posted from it:
 * the rest of the frame's scripts, style, layout and paint recording on the main thread), and the
 * 'long-animation-frame' entries Chromium reports for the same time.
 */
export const FRAME_RECORDER = `window.__frames = (() => {
  let on = false, last = 0, start = 0, t0 = 0, t1 = Infinity, intervals = [], work = [], loafs = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { if (on) work.push(performance.now() - start); };
  const tick = (t) => {
    if (!on) return;
    start = performance.now();
    if (last) intervals.push(t - last);
    last = t;
    channel.port2.postMessage(0);
    requestAnimationFrame(tick);
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.startTime < t0 || e.startTime > t1) continue;
      const end = e.startTime + e.duration;
      const render = e.renderStart || end;
      const layout = e.styleAndLayoutStart || end;
      loafs.push([e.duration, render - e.startTime, layout - render, end - layout]);
    }
  }).observe({ type: 'long-animation-frame' });
  return {
    start() { on = true; last = 0; intervals = []; work = []; loafs = []; t0 = performance.now(); t1 = Infinity; requestAnimationFrame(tick); },
    async stop() {
      on = false;
      t1 = performance.now();
      await new Promise((r) => setTimeout(r, 100));
      return { intervals, work, loafs };
    },
  };
})();`;

const frames = (n: number) => `await new Promise((r) => { let k = ${n}; const f = () => (--k > 0 ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); });`;

/** In the page: scrolls `selector` from the top to the bottom, `stepPx` per frame (every frame shows lines never shown before). */
function jumpScript(selector: string, stepPx: number): string {
  return `(async () => {
  const s = document.querySelector(${JSON.stringify(selector)});
  s.scrollTop = 0;
  ${frames(5)}
  window.__frames.start();
  await new Promise((resolve) => {
    const step = () => {
      if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1) return resolve();
      s.scrollTop += ${stepPx};
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  return window.__frames.stop();
})()`;
}

/** Jump mode, the worst case (a scrollbar thumb dragged fast): `stepPx` per frame from top to bottom. */
export async function jumpScroll(page: Page, selector: string, stepPx: number): Promise<FrameSample> {
  return withMainThread(page, async () => (await page.evaluate(jumpScript(selector, stepPx))) as FrameSample);
}

/**
 * Wheel mode: for each segment, puts `selector` at its place (segment k of n starts k/n of the way
 * down, unmeasured, then waits for the frames to settle) and sends the plan's wheel notches as real
 * input (CDP `Input.dispatchMouseEvent`, type `mouseWheel`) at 60 per second without waiting for
 * the page, as a wheel does: a busy page gets them coalesced, as it would from a person.
 */
export async function wheelScroll(page: Page, selector: string, plan: WheelPlan = WHEEL): Promise<FrameSample> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not on screen`);
  const x = Math.round(box.x + box.width / 2);
  const y = Math.round(box.y + box.height / 2);
  await page.mouse.move(x, y);
  const cdp = await page.context().newCDPSession(page);
  const out = { intervals: [] as number[], work: [] as number[], loafs: [] as number[][], main: { task: 0, script: 0, style: 0, layout: 0 } };
  try {
    for (let k = 0; k < plan.segments; k++) {
      await page.evaluate(`(async () => {
        const s = document.querySelector(${JSON.stringify(selector)});
        s.scrollTop = ${k / plan.segments} * (s.scrollHeight - s.clientHeight);
        ${frames(10)}
      })()`);
      const s = await withMainThread(page, () => wheelSegment(page, cdp, plan, x, y));
      out.intervals.push(...s.intervals);
      out.work.push(...s.work);
      out.loafs.push(...s.loafs);
      for (const key of Object.keys(METRICS) as Array<keyof MainThread>) out.main[key] += s.main[key];
    }
  } finally {
    await cdp.detach();
  }
  return out;
}

/** One segment of wheel mode: records frames while the plan's notches go in at 60 per second. */
async function wheelSegment(page: Page, cdp: CDPSession, plan: WheelPlan, x: number, y: number): Promise<Omit<FrameSample, 'main'>> {
  await page.evaluate('window.__frames.start()');
  const t0 = performance.now();
  const sent: Array<Promise<unknown>> = [];
  for (let f = 0; f < plan.frames; f++) {
    for (let n = 0; n < plan.notches; n++) {
      sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX: 0, deltaY: plan.notchPx }));
    }
    const wait = t0 + (f + 1) * FRAME_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(sent);
  return (await page.evaluate('window.__frames.stop()')) as FrameSample;
}

/**
 * The floor page: a scroller with a tall spacer and absolutely positioned line divs for the
 * viewport, redrawn in a rAF after each scroll. `__floor(text, true)` draws each line's tokens as
 * coloured spans, found by a regular expression for the synthetic dump's lines (operand names,
 * types, opcodes, attribute keys, enum values, numbers: the colour runs the app's HLO view has on
 * those lines), every visible line rebuilt at every frame.
 */
const FLOOR_HTML = `<!doctype html><meta charset="utf-8"><style>
html, body { margin: 0; height: 100%; }
#floor { position: absolute; inset: 0; overflow: auto; font: 13px monospace; line-height: 1.45; contain: strict; }
#floor div { position: absolute; left: 0; white-space: pre; }
.c1 { color: #1e40af } .c2 { color: #0f766e } .c3 { color: #b45309 } .c4 { color: #9333ea } .c5 { color: #7c3aed } .c6 { color: #c2410c }
</style><div id="floor"><div id="spacer" style="width:1px"></div></div>
<script>
const TOKEN = /(%[\\w.\\-]+)|([a-z]+\\d*\\[[\\d,]*\\](?:\\{[\\d,]*\\})?)|([a-z_]+)(?=\\()|([a-z_]+)(?==)|(k[A-Z]\\w*)|(\\b\\d+\\b)/g;
/** Fills a line div with the line's tokens as spans of class c1…c6 (one per group of TOKEN) and the text between them. */
const fillColoured = (d, line) => {
  const parts = [];
  let at = 0;
  let m;
  TOKEN.lastIndex = 0;
  while ((m = TOKEN.exec(line))) {
    if (m.index > at) parts.push(line.slice(at, m.index));
    const span = document.createElement('span');
    span.className = 'c' + m.findIndex((x, i) => i > 0 && x !== undefined);
    span.textContent = m[0];
    parts.push(span);
    at = m.index + m[0].length;
  }
  if (at < line.length) parts.push(line.slice(at));
  d.replaceChildren(...parts);
};
window.__floor = (text, coloured) => {
  const lines = text.split('\\n');
  const s = document.getElementById('floor');
  const probe = s.appendChild(document.createElement('div'));
  probe.textContent = 'x';
  const lh = probe.getBoundingClientRect().height;
  probe.remove();
  document.getElementById('spacer').style.height = lines.length * lh + 'px';
  const pool = [];
  let frame = 0;
  const draw = () => {
    frame = 0;
    const first = Math.floor(s.scrollTop / lh);
    const last = Math.min(lines.length, Math.ceil((s.scrollTop + s.clientHeight) / lh));
    for (let i = first; i < last; i++) {
      let d = pool[i - first];
      if (!d) pool.push((d = s.appendChild(document.createElement('div'))));
      d.style.top = i * lh + 'px';
      if (coloured) fillColoured(d, lines[i]);
      else d.textContent = lines[i];
    }
    for (let j = last - first; j < pool.length; j++) pool[j].textContent = '';
  };
  s.addEventListener('scroll', () => { if (!frame) frame = requestAnimationFrame(draw); }, { passive: true });
  draw();
  return lines.length;
};
</script>`;

/** Opens the floor page in `page` with `text` (one div per visible line); its scroller is `#floor`. */
export async function openFloor(page: Page, text: string, coloured = false): Promise<void> {
  await page.goto(`data:text/html;base64,${Buffer.from(FLOOR_HTML).toString('base64')}`);
  await page.evaluate(([t, c]) => (window as unknown as { __floor: (t: string, c: boolean) => number }).__floor(t, c), [text, coloured] as const);
}

/** Joins samples of several runs of one case. */
export function joinSamples(list: readonly FrameSample[]): FrameSample {
  const sum = (k: keyof MainThread) => list.reduce((a, s) => a + s.main[k], 0);
  return {
    intervals: list.flatMap((s) => s.intervals), work: list.flatMap((s) => s.work), loafs: list.flatMap((s) => s.loafs),
    main: { task: sum('task'), script: sum('script'), style: sum('style'), layout: sum('layout') },
  };
}

/** One line on the main thread's time per frame of a case, as Chromium counts it. */
export function mainLine(name: string, s: FrameSample): string {
  const per = (v: number) => (v / Math.max(1, s.intervals.length)).toFixed(1);
  return `${name}: main thread per frame ${per(s.main.task)} ms (script ${per(s.main.script)}, style ${per(s.main.style)}, layout ${per(s.main.layout)})`;
}

const GOAL_MS = 16.7;

/** Two table rows (rAF interval, frame work) for a case: n, p50, p95, max, goal, p95 / goal, p95 / the floor's p95. */
export function frameRows(name: string, s: FrameSample, floor: FrameSample | null): Array<Array<string | number>> {
  const row = (what: string, v: number[], f: number[] | undefined) => {
    const p95 = quantile(v, 0.95);
    return [`${name}: ${what}`, v.length, quantile(v, 0.5), p95, Math.max(...v), GOAL_MS, p95 / GOAL_MS, f ? p95 / quantile(f, 0.95) : '-'];
  };
  return [row('rAF interval', s.intervals, floor?.intervals), row('frame work', s.work, floor?.work)];
}

/** One line on how many frames came late: rAF intervals over 17.5 ms (a frame missed) of all. */
export function lateLine(name: string, s: FrameSample): string {
  const late = s.intervals.filter((v) => v > 17.5).length;
  return `${name}: ${late} of ${s.intervals.length} frames late (${((100 * late) / Math.max(1, s.intervals.length)).toFixed(1)}%)`;
}

/** Header of the `frameRows` table. */
export const FRAME_HEADER = ['case', 'n', 'p50', 'p95', 'max', 'goal p95', 'p95 / goal', 'p95 / floor'] as const;

/** One line on Chromium's long animation frames of a case: how many per 100 frames, and where their time went. */
export function loafLine(name: string, s: FrameSample): string {
  const n = s.loafs.length;
  if (n === 0) return `${name}: no long animation frames in ${s.intervals.length} frames`;
  const sum = (i: number) => s.loafs.reduce((a, l) => a + (l[i] ?? 0), 0);
  const total = sum(0);
  const pct = (i: number) => `${Math.round((100 * sum(i)) / total)}%`;
  const p95 = quantile(s.loafs.map((l) => l[0] ?? 0), 0.95);
  return `${name}: ${n} long animation frames (${((100 * n) / Math.max(1, s.intervals.length)).toFixed(1)} per 100 frames), p95 ${p95.toFixed(0)} ms; time before rendering ${pct(1)}, rendering callbacks (rAF, scroll) ${pct(2)}, style, layout and paint ${pct(3)}`;
}
