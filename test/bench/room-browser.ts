import type { BrowserContext } from 'playwright-core';
import type { Browser } from 'playwright-core';

/**
 * Shared pieces of the browser-room benchmarks: a synthetic dump shaped like optimized HLO, and a
 * context whose identity is already chosen so that a page opens straight into the room.
 */

/** `lines` lines of HLO-like text, about `bytesPerLine` bytes each; every line is unique. */
export function syntheticDump(lines: number, bytesPerLine = 100): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const head = `  %fusion.${i} = f32[8192,128]{1,0} fusion(%param_0.${i}, %add.${i}), kind=kLoop, calls=%fc.${i}`;
    out.push(head.length >= bytesPerLine - 1 ? head : head + ' '.repeat(bytesPerLine - 1 - head.length));
  }
  return out.join('\n');
}

/** A browser context whose local identity is set before any page script runs. */
export async function personContext(browser: Browser, name: string, color = '#1971c2'): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(
    ([n, c]) => localStorage.setItem('seam.identity', JSON.stringify({ id: `bench-${n}`, name: n, color: c })),
    [name, color] as const,
  );
  return context;
}

/**
 * A script for `page.evaluate`: scrolls the editor to the bottom, `stepPx` per frame (every frame
 * shows lines never shown before), and resolves to [rAF intervals, frame work] in ms. Frame work
 * runs from the rAF callback to a message posted from it: scripts, style, layout, paint recording.
 */
export function scrollToBottom(stepPx: number): string {
  return `new Promise((resolve) => {
  const scroller = document.querySelector('.cm-scroller');
  const intervals = [];
  const work = [];
  const channel = new MessageChannel();
  let start = 0;
  let last = 0;
  channel.port1.onmessage = () => work.push(performance.now() - start);
  const tick = (t) => {
    start = performance.now();
    if (last) intervals.push(t - last);
    last = t;
    if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) return setTimeout(() => resolve([intervals, work]), 50);
    scroller.scrollTop += ${stepPx};
    channel.port2.postMessage(0);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`;
}
