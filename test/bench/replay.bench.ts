import { loadavg } from 'node:os';
import * as Y from 'yjs';
import { addAnnotation, addReply, RoomKey, type Annotation } from '@seam/shared/model';
import { SyncMode } from '../../server/src/config';
import { openDatabase } from '../../server/src/store/db';
import { HistoryStore } from '../../server/src/teaching/replay/history-store';
import { UpdatesStore } from '../../server/src/store/updates-store';
import { launchBrowser, openAs, startWebServer } from '../helpers/browser';
import { addDocument, createRoom } from '../helpers/server';
import { printTable } from './table';

/**
 * `npm run bench class` (second half), replaying a class: a generated two-hour session (40
 * students, 400 questions and notes, 800 replies drawn at random times (those to a question not yet
 * asked are skipped), 3,000 keystrokes of shared notes, the presenter
 * sampled about once a second over six documents) is written to a room's history, then a viewer in
 * Chromium opens Replay. Measured: from the click to the first frame (the slider and the first
 * moment shown; goal ≤ 1 s) against the reference in the same run, the same history fetched by the
 * page alone; once every snapshot is taken, scrubbing, random jumps and a drag, in frames per second (goal ≥ 30) against the
 * page's idle frame rate in the same run. Needs `npm run build`.
 */
const HOURS = 2;
const STUDENTS = 40;
const ANNOTATIONS = 400;
const REPLIES = 800;
const KEYSTROKES = 3000;
const DOCS = 6;
const SAMPLE_EVERY_MS = 1000;
const SCRUBS = 120;
const START_GOAL_MS = 1000;
const FPS_GOAL = 30;

const dumpOf = (d: number) => Array.from({ length: 2000 }, (_, i) => `  %add.${i + 1} = f32[128,256]{1,0} add(%p0, %p1) /* D${d}L${i + 1} */`).join('\n');

const server = await startWebServer();
const browser = await launchBrowser();
try {
  const room = await createRoom(server, 'bench: replay');
  const docIds: string[] = [];
  for (let d = 0; d < DOCS; d++) docIds.push(await addDocument(server, room.id, room.tokens.owner, `part${d}.hlo`, dumpOf(d)));

  // The session, generated in a document of its own and written to the room's history with its times.
  const db = openDatabase(server.dataDir, SyncMode.normal);
  const history = new HistoryStore(db);
  const stored = new UpdatesStore(db).load(room.id);
  const doc = new Y.Doc();
  if (stored.snapshot) Y.applyUpdate(doc, stored.snapshot);
  for (const u of stored.updates) Y.applyUpdate(doc, u);
  // The session starts after the room's own first entries (its documents): history times never go back.
  const t0 = Date.now() + 1000;
  const span = HOURS * 3600_000;
  type Event = { at: number; run: () => void } | { at: number; sample: number };
  const events: Event[] = [];
  let seed = 1;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const ids: string[] = [];
  for (let i = 0; i < ANNOTATIONS; i++) {
    const at = t0 + Math.floor(rand() * span);
    const s = Math.floor(rand() * STUDENTS);
    const id = `a${i}`;
    ids.push(id);
    const a: Annotation = {
      id, docId: docIds[i % DOCS] as string, from: 0, to: 10, quote: { prefix: '', exact: '  %add.1 =', suffix: '' }, kind: i % 3 === 0 ? 'note' : 'question',
      body: `question ${i}: why does this op take ${i} µs?`, author: { id: `s${s}`, name: `Student ${s}`, color: '#1c7ed6' }, createdAt: at, resolved: false, replies: [],
    };
    events.push({ at, run: () => addAnnotation(doc, a) });
  }
  for (let i = 0; i < REPLIES; i++) {
    const at = t0 + Math.floor(rand() * span);
    events.push({ at, run: () => void addReply(doc, ids[Math.floor(rand() * ids.length)] as string, { id: `r${i}`, body: `answer ${i}`, author: { id: 'owner', name: 'Ada', color: '#000000' }, createdAt: at }) });
  }
  for (let i = 0; i < KEYSTROKES; i++) {
    const at = t0 + Math.floor(rand() * span);
    events.push({ at, run: () => doc.getText(RoomKey.notes).insert(doc.getText(RoomKey.notes).length, 'x') });
  }
  for (let at = t0; at < t0 + span; at += SAMPLE_EVERY_MS) events.push({ at, sample: Math.floor((at - t0) / (span / DOCS)) });
  events.sort((a, b) => a.at - b.at);
  let updates = 0;
  let samples = 0;
  let bytes = 0;
  const write = db.transaction(() => {
    for (const e of events) {
      if ('run' in e) {
        let u: Uint8Array | undefined;
        const take = (x: Uint8Array) => (u = x);
        doc.on('update', take);
        e.run();
        doc.off('update', take);
        if (!u) continue;
        history.recordUpdates(room.id, [u], e.at);
        updates += 1;
        bytes += u.length;
      } else {
        history.recordPresenter(room.id, e.at, { docId: docIds[Math.min(DOCS - 1, e.sample)] as string, topLine: 1 + Math.floor(rand() * 1900), anchor: 0, head: 0, userId: 'owner', name: 'Ada' });
        samples += 1;
      }
    }
  });
  write();
  db.close();

  const viewer = await openAs(browser, room.links.viewer, 'Viewer');
  const page = viewer.page;
  await page.locator('.cm-line').first().waitFor();
  // tsx names the functions it compiles with a helper the page lacks: the page gets one that does nothing.
  await page.evaluate('globalThis.__name = (f) => f');
  // The reference: the page fetching the same history alone, every page of it.
  const fetchMs = await page.evaluate(async ({ id, token }) => {
    const start = performance.now();
    let after = '';
    for (;;) {
      const res = await fetch(`/api/rooms/${id}/history${after ? `?after=${after}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      const more = text.trimEnd().split('\n').at(-1) ?? '';
      const m = /"type":"more","next":"([^"]+)"/.exec(more);
      if (!m) break;
      after = m[1] as string;
    }
    return performance.now() - start;
  }, { id: room.id, token: room.tokens.viewer });

  const clickAt = Date.now();
  await page.getByRole('button', { name: 'Replay' }).click();
  await page.getByRole('slider', { name: 'Replay time' }).waitFor();
  await page.getByTestId('replay-count').waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const startMs = Date.now() - clickAt;
  // The snapshots are taken in slices after the first frame; the ticks appear once all are taken.
  await page.locator('dialog[aria-label="Replay"] .tick').first().waitFor();
  const readyMs = Date.now() - clickAt;

  const frames = await page.evaluate(async ({ n }) => {
    const slider = document.querySelector('input[aria-label="Replay time"]') as HTMLInputElement;
    const min = Number(slider.min);
    const max = Number(slider.max);
    const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
    // Idle: the page's own frame rate, nothing changing.
    let t = performance.now();
    for (let i = 0; i < 30; i++) await frame();
    const idleFps = 30 / ((performance.now() - t) / 1000);
    const scrub = async (values: number[]) => {
      const start = performance.now();
      let worst = 0;
      for (const v of values) {
        const f = performance.now();
        slider.value = String(v);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
        worst = Math.max(worst, performance.now() - f);
      }
      return { fps: values.length / ((performance.now() - start) / 1000), worst };
    };
    let s = 7;
    const rand = () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const jumps = await scrub(Array.from({ length: n }, () => min + rand() * (max - min)));
    const drag = await scrub(Array.from({ length: n }, (_, i) => min + ((i + 1) / n) * (max - min)));
    t = performance.now();
    const shown = document.querySelectorAll('dialog[aria-label="Replay"] .annotation').length;
    return { idleFps, jumps, drag, shown, last: performance.now() - t };
  }, { n: SCRUBS });

  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  printTable(`Replay of a ${HOURS}-hour session (${updates.toLocaleString('en-US')} updates, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${samples.toLocaleString('en-US')} presenter samples; load average ${load})`, ['measure', 'value', 'reference', 'ratio', 'goal'], [
    ['replay start: click to first frame (ms)', startMs, `history fetch alone ${fetchMs.toFixed(0)} ms`, startMs / fetchMs, `≤ ${START_GOAL_MS} ms ${startMs <= START_GOAL_MS ? 'met' : 'MISSED'}`],
    ['every snapshot taken, ticks drawn (ms)', readyMs, `history fetch alone ${fetchMs.toFixed(0)} ms`, readyMs / fetchMs, ''],
    ['scrub, random jumps (frames/s)', frames.jumps.fps, `idle page ${frames.idleFps.toFixed(0)} fps`, frames.jumps.fps / frames.idleFps, `≥ ${FPS_GOAL} ${frames.jumps.fps >= FPS_GOAL ? 'met' : 'MISSED'}`],
    ['scrub, drag start to end (frames/s)', frames.drag.fps, `idle page ${frames.idleFps.toFixed(0)} fps`, frames.drag.fps / frames.idleFps, `≥ ${FPS_GOAL} ${frames.drag.fps >= FPS_GOAL ? 'met' : 'MISSED'}`],
    ['worst frame, jumps / drag (ms)', `${frames.jumps.worst.toFixed(0)} / ${frames.drag.worst.toFixed(0)}`, '', '', ''],
  ]);
  if (frames.shown === 0) throw new Error('the replay showed no annotation at the end of the session');
} finally {
  await browser.close();
  await server.close();
}
