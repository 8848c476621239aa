import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { analyze } from '@seam/shared/ir';
import type { DrillEntry, DrillQuestion } from '@seam/shared/teaching';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';

/** The course's drill program at 16×32 (x @ wq, x @ wk, x @ wv, q @ kᵀ), as JAX lowers it. */
const COURSE = readFileSync(new URL('../fixtures/drill/course.stablehlo.mlir', import.meta.url), 'utf8');
const INDEX = analyze(COURSE, 'stablehlo').index;
/** Student names; the last is markup, which must show as text. */
const STUDENTS = ['Ana', 'Ben', 'Chloé', 'Dev', '<b>Eve</b>'];

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let teacher: Person;
const students: Person[] = [];
const errors: string[] = [];
const shots: string[] = [];

/** The right answer to a question, read from the IR index of the course dump. */
function rightAnswer(q: DrillQuestion): string {
  const dot = INDEX.dots.find((d) => d.name === q.subject);
  if (q.ask === 'einsum' && dot) return dot.einsum;
  if (q.ask === 'contracting' && dot) return `[${dot.lhsContracting.join(',')}] x [${dot.rhsContracting.join(',')}]`;
  if (q.ask === 'batch' && dot) return dot.lhsBatch.length ? `[${dot.lhsBatch.join(',')}] x [${dot.rhsBatch.join(',')}]` : 'none';
  const value = INDEX.values.find((v) => v.name === q.subject);
  if (q.ask === 'bytes' && value) return `${value.bytes / 1024} KiB`;
  throw new Error(`no answer for ${q.ask} ${q.subject}`);
}
/** Student `s` answers question `k` wrong when this holds: every question gets some wrong, every student some right. */
const answersWrong = (s: number, k: number): boolean => (s + k) % 3 === 0;

async function drillOf(): Promise<DrillEntry> {
  const res = await fetch(`${server.url}/api/rooms/${room.id}/drills`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
  const { drills } = (await res.json()) as { drills: DrillEntry[] };
  if (!drills[0]) throw new Error('no drill');
  return drills[0];
}

async function shoot(page: Page, name: string): Promise<void> {
  const path = join(tmpdir(), `seam-drill-${name}.png`);
  await page.screenshot({ path });
  shots.push(path);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Drill: dot_general');
  await addDocument(server, room.id, room.tokens.owner, 'course.stablehlo.mlir', COURSE);
  teacher = await openAs(browser, room.links.owner, 'Prof', errors);
  for (const [i, name] of STUDENTS.entries()) students.push(await openAs(browser, i < 3 ? room.links.annotator : room.links.viewer, name, errors));
  for (const p of [teacher, ...students]) {
    await p.page.locator('.cm-line', { hasText: 'stablehlo.dot_general' }).first().waitFor();
    await p.page.getByRole('tab', { name: 'Drill' }).click();
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  console.log(`drill screenshots: ${shots.join(', ')}`);
});

describe('a drill in a class of five', () => {
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

  it('a student showing a question\'s line sees it selected in the dump', async () => {
    const q = drill.questions[0]!;
    const page = students[0]!.page;
    await page.locator(`li[data-question="${q.id}"]`).getByRole('button', { name: `Show line ${q.line}` }).click();
    const selected = () => page.evaluate(() => document.getSelection()?.toString() ?? '');
    await expect.poll(selected).toContain(`${q.subject} = stablehlo.dot_general`);
    // The selected line offers the annotate toolbar like any other; moving the caret puts it away.
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByRole('button', { name: 'Question', exact: true }).count()).toBe(0);
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
    await expect.poll(() => tally.textContent()).toBe('5 answered · 4 right · 1 wrong');

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
    await teacher.page.getByText('Revealed · 5 answered').waitFor();
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
    expect(await first.locator('.tally').textContent()).toBe('5 answered · 4 right · 1 wrong');
    await shoot(students[4]!.page, 'student-revealed');
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
