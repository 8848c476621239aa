import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { DrillEntry } from '@seam/shared/teaching';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { lineVisible } from '../helpers/dump-room';
import { annotateToolbar, COURSE, newestDrill, rightAnswer, screenshots, selectedLines } from './teaching-kit';

/**
 * Student names; the last, a viewer, is markup, which must show as text. (A class of five, live
 * and revealed, is class-session.test.ts.)
 */
const STUDENTS = ['Ana', 'Chloé', '<b>Eve</b>'];

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let teacher: Person;
const students: Person[] = [];
const errors: string[] = [];
const shots = screenshots('drill');

/** Student `s` answers question `k` wrong when this holds: every question gets some wrong, every student some right. */
const answersWrong = (s: number, k: number): boolean => (s + k) % 2 === 0;

const drillOf = (): Promise<DrillEntry> => newestDrill(server, room.id, room.tokens.viewer);
const shoot = shots.shoot;

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Drill: dot_general');
  await addDocument(server, room.id, room.tokens.owner, 'course.stablehlo.mlir', COURSE);
  teacher = await openAs(browser, room.links.owner, 'Prof', errors);
  for (const [i, name] of STUDENTS.entries()) students.push(await openAs(browser, i < 2 ? room.links.annotator : room.links.viewer, name, errors));
  for (const p of [teacher, ...students]) {
    await p.page.locator('.cm-line', { hasText: 'stablehlo.dot_general' }).first().waitFor();
    await p.page.getByRole('tab', { name: 'Drill' }).click();
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  console.log(`drill screenshots: ${shots.paths.join(', ')}`);
});

describe('a drill in a class of three', () => {
  let drill: DrillEntry;

  it('the instructor starts a drill on the open dump and every student sees its questions', async () => {
    await teacher.page.getByRole('spinbutton', { name: 'Drill length' }).fill('4');
    await teacher.page.getByRole('button', { name: 'Start drill' }).click();
    await teacher.page.getByRole('button', { name: 'Reveal answers' }).waitFor();
    drill = await drillOf();
    expect(drill.questions.map((q) => q.ask)).toEqual(['einsum', 'contracting', 'batch', 'bytes']);
    for (const s of students) {
      for (const q of drill.questions) await s.page.locator(`li[data-question="${q.id}"]`, { hasText: q.prompt }).waitFor();
      await expect.poll(() => s.page.getByRole('button', { name: 'Reveal answers' }).count()).toBe(0);
    }
  });

  it('a student typing an answer shows the question\'s line: the dump scrolls to it and selects it, and the typing goes on in the answer box', async () => {
    const page = students[0]!.page;
    // The earliest line asked about, out of view: the dump in a short window, scrolled to its end.
    const q = [...drill.questions].sort((a, b) => a.line - b.line)[0]!;
    // The question's line as the dump has it: an op's result (`%0 = stablehlo.…`) or, for a value's
    // bytes, possibly an argument of the function's signature (`func.func public @main(%arg0: …`).
    const subject = (COURSE.split('\n')[q.line - 1] ?? '').trim();
    expect(subject).toContain(q.subject);
    // The student's own window is the one in front (Chromium draws, and runs animation frames for, the page in front).
    await page.bringToFront();
    await page.setViewportSize({ width: 1400, height: 380 });
    await page.locator('.cm-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => lineVisible(page, subject)).toBe(false);
    const li = page.locator(`li[data-question="${q.id}"]`);
    await li.getByRole('textbox').click();
    await page.keyboard.type('ij,');
    await li.getByRole('button', { name: `Show line ${q.line}` }).click();
    await expect.poll(() => lineVisible(page, subject)).toBe(true);
    await expect.poll(() => selectedLines(page)).toEqual([expect.stringContaining(subject)]);
    await page.keyboard.type('jk');
    expect(await li.getByRole('textbox').inputValue()).toBe('ij,jk');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Answer to ${q.id}`);
    // No annotate toolbar over the line: the selection is shown, not offered for a note.
    expect(await annotateToolbar(page).count()).toBe(0);
    await shoot(page, 'show-line');
    // Selecting in the dump by hand still offers the toolbar.
    await page.locator('.cm-line', { hasText: subject }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await annotateToolbar(page).waitFor();
    await page.keyboard.press('Escape');
    await li.getByRole('textbox').fill('');
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('students answer privately and the instructor sees each answer arrive, right and wrong', async () => {
    const q1 = drill.questions[0]!;
    const tally = teacher.page.locator(`[data-tally="${q1.id}"]`);
    await expect.poll(() => tally.textContent()).toBe('0 answered · 0 right · 0 wrong');
    for (const [s, student] of students.entries()) {
      for (const [k, q] of drill.questions.entries()) {
        const li = student.page.locator(`li[data-question="${q.id}"]`);
        const text = answersWrong(s, k) ? 'ij,jk->ki' : rightAnswer(q);
        await li.getByRole('textbox').fill(text);
        await li.getByRole('button', { name: 'Answer' }).click();
        await expect.poll(() => li.locator('.sent').textContent()).toBe(`Sent: ${text} · your result shows when the owner reveals`);
      }
      // The instructor's view grows with each student, before anything is revealed.
      const right = STUDENTS.slice(0, s + 1).filter((_, i) => !answersWrong(i, 0)).length;
      await expect.poll(() => tally.textContent()).toBe(`${s + 1} answered · ${right} right · ${s + 1 - right} wrong`);
      await expect.poll(() => teacher.page.getByRole('region', { name: 'Answers by person' }).locator('tbody tr').count()).toBe(s + 1);
    }
    // A student changes an answer: it replaces the first, and the count does not grow.
    const fix = students[0]!.page.locator(`li[data-question="${q1.id}"]`);
    await fix.getByRole('textbox').fill(rightAnswer(q1));
    await fix.getByRole('button', { name: 'Change' }).click();
    await fix.getByText(`Sent: ${rightAnswer(q1)}`).waitFor();
    await expect.poll(() => tally.textContent()).toBe('3 answered · 2 right · 1 wrong');

    const table = teacher.page.getByRole('region', { name: 'Answers by person' });
    await expect.poll(() => table.locator('td.who').allTextContents()).toEqual(STUDENTS);
    expect(await teacher.page.locator('b').filter({ hasText: 'Eve' }).count()).toBe(0);
    // No student sees a verdict, or anyone else's answers, before the reveal.
    for (const s of students) {
      expect(await s.page.getByText('✓ right').count()).toBe(0);
      expect(await s.page.getByText('✗ wrong').count()).toBe(0);
      expect(await s.page.getByRole('region', { name: 'Answers by person' }).count()).toBe(0);
    }
    await shoot(teacher.page, 'instructor-live');
    await shoot(students[1]!.page, 'student-answered');
  });

  it('the instructor reveals: every student sees the answers, the class tally and their own result', async () => {
    await teacher.page.getByRole('button', { name: 'Reveal answers' }).click();
    await teacher.page.getByText('Revealed · 3 answered').waitFor();
    for (const [s, student] of students.entries()) {
      for (const [k, q] of drill.questions.entries()) {
        const li = student.page.locator(`li[data-question="${q.id}"]`);
        const wrong = answersWrong(s, k) && !(s === 0 && k === 0);
        await li.locator('.result').getByText(wrong ? '✗ wrong' : '✓ right').waitFor();
        await li.getByText('Answer:').waitFor();
        expect(await li.getByRole('textbox').count()).toBe(0);
      }
    }
    const first = students[0]!.page.locator(`li[data-question="${drill.questions[0]!.id}"]`);
    expect(await first.locator('.expected code').textContent()).toBe('ij,jk->ik');
    expect(await first.locator('.tally').textContent()).toBe('3 answered · 2 right · 1 wrong');
    await shoot(students[2]!.page, 'student-revealed');
    await shoot(teacher.page, 'instructor-revealed');
  });

  it('a second drill replaces the first for everyone, with no answers carried over', async () => {
    await teacher.page.getByRole('spinbutton', { name: 'Drill length' }).fill('2');
    await teacher.page.getByRole('button', { name: 'Start drill' }).click();
    await expect.poll(async () => (await drillOf()).id).not.toBe(drill.id);
    const next = await drillOf();
    await teacher.page.getByRole('button', { name: 'Reveal answers' }).waitFor();
    await expect.poll(() => teacher.page.locator(`[data-tally="q1"]`).textContent()).toBe('0 answered · 0 right · 0 wrong');
    for (const s of students) {
      const li = s.page.locator('li[data-question="q1"]', { hasText: next.questions[0]!.prompt });
      await li.getByRole('textbox').waitFor();
      expect(await li.getByText('Sent:').count()).toBe(0);
      expect(await li.getByRole('textbox').inputValue()).toBe('');
      expect(await s.page.locator('li[data-question]').count()).toBe(2);
    }
    expect(errors).toEqual([]);
  });
});
