import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Annotation } from '@seam/shared/model';
import type { DrillEntry } from '@seam/shared/teaching';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, listAnnotations, type CreatedRoom, type TestServer } from '../helpers/server';
import { annotateLine } from '../helpers/dump-room';
import { fixture } from '../helpers/ir-fixture';
import { lineOf, openDocument } from './ir-kit';
import {
  answer, COURSE, handButton, newestDrill, presenterSamples, queued, questionItem, recordReplay, replayShown, rightAnswer, screenshots, scrollToLine, scrub,
} from './teaching-kit';

/**
 * One class session in Chromium, each person in a browser context of their own at 1,440×900: the
 * instructor opens a room from a lab, adds two dumps and presents them while four students ask
 * about them; a fifth joins late and replays that first part; the five take a drill while the
 * instructor watches the answers arrive and reveals them; a student raises a hand, the instructor
 * lowers it.
 */

const WINDOW = { viewport: { width: 1440, height: 900 } };
/** On time, then the one who comes late. */
const ON_TIME = ['Ana', 'Ben', 'Chloé', 'Dev'];
const LATE = 'Eve';
/** Naive attention's optimized HLO, 167 lines: the instructor presents it from line 140 down. */
const HLO = fixture('attention', 'hlo-opt.txt');
const SCORES = '%wrapped_convert.2 = bf16[8192,8192]';
/** What the students ask in the first part, on which line, in order: on the HLO, then on the course dump. */
const ASKED = [
  { who: 0, line: SCORES, kind: 'Question', body: 'is this the S×S score matrix, in bf16?' },
  { who: 1, line: '%3 = stablehlo.transpose', kind: 'Note', body: 'the transpose is kᵀ' },
  { who: 2, line: '%4 = stablehlo.dot_general', kind: 'Question', body: 'which dims contract here?' },
] as const;
const REPLY = 'yes: 128 MiB written once and read back';
/** Student `s` answers question `k` of the drill wrong when this holds (Ben the first, Dev the second). */
const answersWrong = (s: number, k: number): boolean => (k === 0 && s === 1) || (k === 1 && s === 3);

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let prof: Person;
const students: Person[] = [];
const errors: string[] = [];
const shots = screenshots('class-session');

const sidePanelTabs = (page: Page) => page.getByRole('tablist', { name: 'Side panel' });
/** The side panel's tab bar: its content height, the tallest tab, how many rows its tabs sit on, and whether all are inside it. */
const tabBar = (page: Page) =>
  sidePanelTabs(page).evaluate((bar) => {
    const round = (x: number) => Math.round(x * 10) / 10;
    const style = getComputedStyle(bar);
    const box = bar.getBoundingClientRect();
    const tabs = [...bar.querySelectorAll('[role="tab"]')].map((t) => t.getBoundingClientRect());
    return {
      height: round(box.height - ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce((sum, k) => sum + parseFloat(style.getPropertyValue(k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))), 0)),
      tab: round(Math.max(...tabs.map((t) => t.height))),
      rows: new Set(tabs.map((t) => Math.round(t.top))).size,
      inside: tabs.every((t) => t.left >= box.left && t.right <= box.right && t.width > 0),
    };
  });

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  prof = await openAs(browser, `${server.url}/`, 'Prof', errors, WINDOW);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  console.log(`class session screenshots: ${shots.paths.join(', ')}`);
});

describe('a class session', () => {
  let asked: Annotation[] = [];
  let drill: DrillEntry;

  it('the instructor opens a room from a lab, adds two dumps and presents them while four students ask about them', async () => {
    const created = prof.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/rooms' && r.request().method() === 'POST');
    await prof.page.getByRole('region', { name: 'Open a lab' }).getByRole('button', { name: 'LAB·2.2 Predict the attention spill, then find it' }).click();
    room = (await (await created).json()) as CreatedRoom;
    await prof.page.getByLabel('Lab', { exact: true }).getByRole('heading', { name: 'LAB·2.2 Predict the attention spill, then find it' }).waitFor();
    const courseId = await addDocument(server, room.id, room.tokens.owner, 'course.stablehlo.mlir', COURSE);
    const hloId = await addDocument(server, room.id, room.tokens.owner, 'attn.hlo-opt', HLO);
    await openDocument(prof.page, 'attn.hlo-opt', 'HloModule jit_attention');
    students.push(...await Promise.all(ON_TIME.map((name) => openAs(browser, room.links.annotator, name, errors, WINDOW))));
    for (const s of students) {
      await s.page.locator('.cm-line').first().waitFor();
      // A room opened from a lab shows its Lab panel first, to everyone.
      expect(await s.page.getByRole('tab', { name: 'Lab' }).getAttribute('aria-selected')).toBe('true');
    }
    const latestSample = async () => (await presenterSamples(server, room.id, room.tokens.viewer)).at(-1);

    // The instructor presents the HLO from line 140; Ana, following, asks about the scores there.
    await prof.page.getByRole('button', { name: 'Present', exact: true }).click();
    await prof.page.getByRole('button', { name: 'Stop presenting' }).waitFor();
    await scrollToLine(prof.page, 140);
    await expect.poll(async () => (await latestSample())?.topLine ?? 0).toBeGreaterThanOrEqual(115);
    const ana = students[0]!.page;
    await ana.getByText('Following Prof').waitFor();
    await ana.locator('.cm-line', { hasText: SCORES }).waitFor();
    await annotateLine(ana, SCORES, ASKED[0].kind, ASKED[0].body);
    await expect.poll(async () => (await listAnnotations(server, room.id, room.tokens.owner)).length).toBe(1);
    const [first] = await listAnnotations(server, room.id, room.tokens.owner);
    const replied = await fetch(`${server.url}/api/rooms/${room.id}/annotations/${first!.id}/replies`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: REPLY, author: { name: 'Prof' } }),
    });
    expect(replied.status).toBe(201);

    // Then the course dump: Ben and Chloé, following, ask about two of its lines.
    await openDocument(prof.page, 'course.stablehlo.mlir', 'stablehlo.dot_general');
    await expect.poll(async () => (await latestSample())?.docId).toBe(courseId);
    for (const [n, a] of ASKED.entries()) {
      if (n === 0) continue;
      const page = students[a.who]!.page;
      await page.locator('.cm-line', { hasText: a.line }).waitFor();
      await annotateLine(page, a.line, a.kind, a.body);
      await expect.poll(async () => (await listAnnotations(server, room.id, room.tokens.owner)).length).toBe(n + 1);
    }
    await prof.page.getByRole('button', { name: 'Stop presenting' }).click();
    asked = [...await listAnnotations(server, room.id, room.tokens.owner)].sort((a, b) => a.createdAt - b.createdAt);
    expect(asked.map((a) => [a.docId, a.body])).toEqual(ASKED.map((a, n) => [n === 0 ? hloId : courseId, a.body]));
  });

  it('a student who joins late replays that first part: the annotations appear in order, the thread grows, the presenter\'s document and line follow', async () => {
    const eve = await openAs(browser, room.links.annotator, LATE, errors, WINDOW);
    students.push(eve);
    await eve.page.locator('.cm-line').first().waitFor();
    await eve.page.getByRole('button', { name: 'Replay' }).click();
    const dialog = eve.page.getByRole('dialog', { name: 'Replay' });
    await dialog.getByRole('slider', { name: 'Replay time' }).waitFor();
    await expect.poll(() => dialog.getByTestId('replay-starts').textContent()).toMatch(/^History starts at/);
    // Ticks mark where the two questions appear.
    await expect.poll(() => dialog.locator('.tick-question').count()).toBe(2);
    const [a1, , a3] = asked as [Annotation, Annotation, Annotation];
    const bodies = ASKED.map((a) => a.body);

    // Just after the first question: only it, on the HLO, the presenter there from about line 140.
    await scrub(eve.page, a1.createdAt + 100);
    await expect.poll(() => replayShown(eve.page)).toEqual(bodies.slice(0, 1));
    await expect.poll(() => dialog.getByTestId('replay-doc-title').textContent()).toBe('attn.hlo-opt');
    expect(Number(await dialog.getByTestId('replay-line').textContent())).toBeGreaterThanOrEqual(115);
    await dialog.locator(`.row[data-line="${lineOf(HLO, SCORES)}"]`).waitFor();
    // The end of the first part: all three, the instructor's answer, the presenter on the course dump.
    await scrub(eve.page, a3.createdAt + 100);
    await expect.poll(() => replayShown(eve.page)).toEqual(bodies);
    await dialog.getByText(REPLY).waitFor();
    await expect.poll(() => dialog.getByTestId('replay-doc-title').textContent()).toBe('course.stablehlo.mlir');
    await shots.shoot(eve.page, 'late-student-replay');

    // From just before the first question, played at 4× and every state shown recorded: one after the other, in order.
    await scrub(eve.page, a1.createdAt - 300);
    await expect.poll(() => replayShown(eve.page)).toEqual([]);
    const record = await recordReplay(eve.page);
    await dialog.getByRole('combobox', { name: 'Speed' }).selectOption('4');
    await dialog.getByRole('button', { name: 'Play', exact: true }).click();
    await expect.poll(async () => (await record.seen()).at(-1)?.length, { timeout: 20_000 }).toBe(ASKED.length);
    expect(await record.seen()).toEqual([[], bodies.slice(0, 1), bodies.slice(0, 2), bodies]);
    await dialog.getByRole('button', { name: 'Close replay' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Replaying changed nothing in the live room.
    expect(await listAnnotations(server, room.id, room.tokens.owner)).toEqual(asked);
  });

  it('the five take a drill: the instructor sees the answers arrive and reveals them', async () => {
    for (const p of [prof, ...students]) await p.page.getByRole('tab', { name: 'Drill' }).click();
    await prof.page.getByRole('spinbutton', { name: 'Drill length' }).fill('2');
    await prof.page.getByRole('button', { name: 'Start drill' }).click();
    await prof.page.getByRole('button', { name: 'Reveal answers' }).waitFor();
    drill = await newestDrill(server, room.id, room.tokens.viewer);
    const [q1, q2] = drill.questions as [DrillEntry['questions'][number], DrillEntry['questions'][number]];
    const tally = prof.page.locator(`[data-tally="${q1.id}"]`);
    for (const [s, student] of students.entries()) {
      await questionItem(student.page, q2).getByText(q2.prompt).waitFor();
      for (const [k, q] of [q1, q2].entries()) await answer(student.page, q, answersWrong(s, k) ? 'ij,jk->ki' : rightAnswer(q));
      // The instructor's count grows with each student, live, before anything is revealed.
      const right = students.slice(0, s + 1).filter((_, i) => !answersWrong(i, 0)).length;
      await expect.poll(() => tally.textContent()).toBe(`${s + 1} answered · ${right} right · ${s + 1 - right} wrong`);
    }
    const byPerson = prof.page.getByRole('region', { name: 'Answers by person' });
    await expect.poll(() => byPerson.locator('td.who').allTextContents()).toEqual([...ON_TIME, LATE]);
    await shots.shoot(prof.page, 'instructor-answers-live');
    expect(await students[0]!.page.getByText('✓ right').count()).toBe(0);

    await prof.page.getByRole('button', { name: 'Reveal answers' }).click();
    await prof.page.getByText('Revealed · 5 answered').waitFor();
    for (const [s, student] of students.entries()) {
      for (const [k, q] of [q1, q2].entries()) await questionItem(student.page, q).locator('.result').getByText(answersWrong(s, k) ? '✗ wrong' : '✓ right').waitFor();
    }
    expect(await questionItem(students[1]!.page, q1).locator('.tally').textContent()).toBe('5 answered · 4 right · 1 wrong');
    await shots.shoot(students[1]!.page, 'student-revealed');
  });

  it('a student raises a hand; the instructor, whose tabs stay on one row, sees it in the queue and lowers it; the student sees it lowered', async () => {
    const chloe = students[2]!;
    await handButton(chloe.page).click();
    const classTab = prof.page.getByRole('tab', { name: 'Class · 1 hand' });
    await classTab.waitFor();
    // All six owner tabs (Lab, Annotations, Spills, Capture, Drill, Class) on one row at 1,440 px,
    // each named and with its name as tooltip when only its icon shows.
    expect(await sidePanelTabs(prof.page).getByRole('tab').count()).toBe(6);
    const bar = await tabBar(prof.page);
    expect(bar).toEqual({ height: bar.tab, tab: bar.tab, rows: 1, inside: true });
    expect(await classTab.getAttribute('title')).toBe('Class · 1 hand');
    const studentBar = await tabBar(chloe.page);
    expect(studentBar).toEqual({ height: studentBar.tab, tab: studentBar.tab, rows: 1, inside: true });
    await shots.shoot(prof.page, 'instructor-hand-up');

    await classTab.click();
    await expect.poll(() => queued(prof.page)).toEqual(['Chloé']);
    await prof.page.getByRole('button', { name: "Lower Chloé's hand" }).click();
    await expect.poll(() => queued(prof.page)).toEqual([]);
    await chloe.page.getByRole('status').filter({ hasText: 'Your hand was lowered' }).waitFor();
    await expect.poll(() => handButton(chloe.page).getAttribute('aria-pressed')).toBe('false');
    await prof.page.getByRole('tab', { name: 'Class', exact: true }).waitFor();
    expect((await tabBar(prof.page)).rows).toBe(1);
    await shots.shoot(prof.page, 'instructor-class');
    expect(errors).toEqual([]);
  });
});
