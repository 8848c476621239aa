import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { launchBrowser, startWebServer } from '../helpers/browser';
import { addDocument, createRoom } from '../helpers/server';
import { printTable, quantile } from './table';
import { personContext } from './room-browser';

/**
 * Browser room, annotation latency between two people in headless Chromium: Bo marks a spill
 * through the UI (select, Spill, comment, Enter); the time from Bo's Enter to the frame in which
 * the comment is in Ada's annotation panel. Goal p95 ≤ 100 ms. Both pages read the same clock
 * (`performance.timeOrigin + performance.now()`).
 */
const ROUNDS = 60;
const DUMP = readFileSync(new URL('../fixtures/ir/attention/hlo-opt.txt', import.meta.url), 'utf8');
const LINE = '%convert.50 = bf16[8192,8192]{1,0} convert(%param_1.3)';

const server = await startWebServer();
const browser = await launchBrowser();
try {
  const room = await createRoom(server, 'bench: latency');
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo', DUMP);
  const ada = await (await personContext(browser, 'Ada')).newPage();
  const bo = await (await personContext(browser, 'Bo', '#d9480f')).newPage();
  await ada.goto(room.links.owner);
  await bo.goto(room.links.annotator);
  for (const p of [ada, bo]) await p.locator('.cm-line', { hasText: LINE }).waitFor();
  await ada.evaluate(`(() => {
    window.__seen = {};
    const panel = document.querySelector('[aria-label="Annotations"]');
    new MutationObserver(() => {
      for (const m of panel.textContent.matchAll(/bench-(\\d+)/g)) {
        if (window.__seen[m[1]] === undefined) {
          window.__seen[m[1]] = 0;
          requestAnimationFrame(() => (window.__seen[m[1]] = performance.timeOrigin + performance.now()));
        }
      }
    }).observe(panel, { childList: true, subtree: true, characterData: true });
  })()`);
  await bo.evaluate(`(() => {
    window.__sent = {};
    addEventListener('keydown', (e) => {
      const v = e.target && e.target.value;
      if (e.key === 'Enter' && typeof v === 'string' && v.startsWith('bench-')) window.__sent[v.slice(6)] = performance.timeOrigin + performance.now();
    }, true);
  })()`);
  const latencies: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await bo.locator('.cm-line', { hasText: LINE }).click();
    await bo.keyboard.press('Home');
    await bo.keyboard.press('Shift+End');
    await bo.getByRole('button', { name: 'Spill', exact: true }).click();
    await bo.getByRole('textbox', { name: 'Comment' }).fill(`bench-${i}`);
    await bo.keyboard.press('Enter');
    await ada.waitForFunction(`(window.__seen[${i}] || 0) > 0`);
    const sent = (await bo.evaluate(`window.__sent[${i}]`)) as number;
    const seen = (await ada.evaluate(`window.__seen[${i}]`)) as number;
    latencies.push(seen - sent);
  }
  printTable(`Annotation made in one browser, visible in another (${ROUNDS} rounds, ms)`, ['measure', 'p50', 'p95', 'max', 'goal p95', 'p95 / goal'], [
    ['Enter in Bo → frame with it in Ada', quantile(latencies, 0.5), quantile(latencies, 0.95), Math.max(...latencies), 100, quantile(latencies, 0.95) / 100],
  ]);
  console.log(`load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)} on this machine's CPUs, shared with other work`);
} finally {
  await browser.close();
  await server.close();
}
