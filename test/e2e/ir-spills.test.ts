import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyze } from '@seam/shared/ir';
import type { Annotation } from '@seam/shared/model';
import type { Person } from '../helpers/browser';
import { openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import type { CreatedRoom, TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';
import { lineOf } from './ir-kit';

const DUMP = fixture('attention', 'hlo-opt.txt');
// The naive-attention score matrix as the compiled dump writes it: S×S f32 out of the fusion that computes exp(QKᵀ).
const SCORE = /^[ \t]*(?:ROOT\s+)?%?([\w.\-]+) = (f32\[8192,8192\]\{1,0\}) fusion\([^\n]*op_name="[^"\n]*\/exp"[^\n]*$/m;

let server: TestServer;
let lab: DumpRoom;
let room: CreatedRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

beforeAll(async () => {
  lab = await openDumpRoom({ roomTitle: 'Naive attention lab', dumpTitle: 'attention.hlo-opt.txt', dump: DUMP, lineText: 'HloModule jit_attention' }, errors);
  ({ server, room, ada, bo } = lab);
});

afterAll(async () => {
  await lab?.close();
});

describe('spills of naive attention in the browser', () => {
  const m = SCORE.exec(DUMP);

  it('ranks the 8192×8192 score matrix first, with its exact size from the dump', async () => {
    expect(m, 'the fixture writes the score matrix out of a fusion').not.toBeNull();
    const [, producer, type] = m!;
    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    const first = ada.page.getByRole('region', { name: 'Spills' }).getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').nth(1);
    await expect.poll(async () => (await first.textContent()) ?? '').toContain(producer);
    expect(await first.textContent()).toContain(type);
    expect(await first.getAttribute('data-bytes')).toBe(String(8192 * 8192 * 4));
    expect(await first.getByRole('cell').nth(1).getAttribute('title')).toBe('268,435,456 B (256 MiB)');
    const traffic = Number(await first.getAttribute('data-traffic'));
    expect(traffic).toBeGreaterThanOrEqual(2 * 8192 * 8192 * 4);
    expect(traffic % (8192 * 8192 * 4)).toBe(0);
  });

  it('marks it as a spill with its size and traffic, which another person sees, and exports it with its quoted line', async () => {
    const [line, producer] = m!;
    const first = ada.page.getByRole('region', { name: 'Spills' }).getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').nth(1);
    const traffic = Number(await first.getAttribute('data-traffic'));
    await first.getByRole('button', { name: 'Mark as spill' }).click();

    const boPanel = bo.page.getByRole('region', { name: 'Annotations' });
    await expect.poll(async () => (await boPanel.textContent()) ?? '', { timeout: 15_000 }).toContain('268,435,456 B');
    expect(await boPanel.textContent()).toContain(producer);

    const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    const [a] = ((await res.json()) as { annotations: Annotation[] }).annotations;
    expect(a).toMatchObject({ kind: 'spill', instruction: producer, bytes: 268_435_456, traffic });

    const md = await (await fetch(`${server.url}/api/rooms/${room.id}/export.md`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).text();
    expect(md).toContain(`### **spill** · \`${producer}\` · 268,435,456 B (256 MiB) · `);
    expect(md).toContain(`\`\`\`\n${line}\n\`\`\``);

    const [download] = await Promise.all([
      ada.page.waitForEvent('download'),
      (async () => {
        await ada.page.getByRole('button', { name: 'Export' }).click();
        await ada.page.getByRole('menuitem', { name: 'Markdown report' }).click();
      })(),
    ]);
    const fromUi = readFileSync((await download.path())!, 'utf8');
    const withoutStamp = (s: string) => s.replace(/^Exported .*$/m, '');
    expect(withoutStamp(fromUi)).toBe(withoutStamp(md));
    expect(errors).toEqual([]);
  });

  it('shows the marked candidate as Marked to everyone; Marked opens its thread instead of marking it twice', async () => {
    const [, producer] = m!;
    await bo.page.getByRole('tab', { name: 'Spills' }).click();
    const first = bo.page.getByRole('region', { name: 'Spills' }).getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').nth(1);
    await expect.poll(async () => (await first.textContent()) ?? '').toContain(producer);
    await first.getByRole('button', { name: 'Marked' }).click();
    const thread = bo.page.getByRole('region', { name: 'Annotations' }).locator('article.thread.selected');
    await expect.poll(async () => (await thread.textContent()) ?? '').toContain('268,435,456 B');
    const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    expect(((await res.json()) as { annotations: Annotation[] }).annotations.filter((a) => a.instruction === producer)).toHaveLength(1);
  });

  it('marks the fusion with the most fused ops as a fusion, anchored on its instruction line, which another person sees and the export lists', async () => {
    const fusions = analyze(DUMP, 'hlo-opt').index.fusions;
    const f = fusions.reduce((best, x) => (x.fusedOps > best.fusedOps ? x : best), fusions[0]!);
    expect(f.fusedOps, 'attention fuses more than one op somewhere').toBeGreaterThan(1);
    const line = lineOf(DUMP, `%${f.name} = `);
    const lineText = DUMP.split('\n')[line - 1]!;
    expect(lineText).toMatch(new RegExp(`fusion\\(.*kind=${f.kind}, calls=%${f.calls.replace(/\./g, '\\.')}\\b`));

    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    const row = ada.page.getByRole('table', { name: 'Fusions' }).getByRole('row').filter({ has: ada.page.getByRole('button', { name: f.name, exact: true }) });
    await row.getByRole('button', { name: 'Mark as fusion' }).click();

    const body = `${f.kind} fusion of ${f.fusedOps} ops`;
    const boPanel = bo.page.getByRole('region', { name: 'Annotations' });
    await expect.poll(async () => (await boPanel.textContent()) ?? '', { timeout: 15_000 }).toContain(body);
    await boPanel.getByRole('article', { name: 'fusion by Ada' }).getByRole('button', { name: 'Go to range' }).click();
    const boLine = bo.page.locator('.cm-line', { has: bo.page.locator('.cm-ann.cm-ann-fusion') });
    await expect.poll(async () => (await boLine.first().textContent()) ?? '').toContain(`%${f.name} = `);

    const res = await fetch(`${server.url}/api/rooms/${room.id}/annotations`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    const a = ((await res.json()) as { annotations: Annotation[] }).annotations.find((x) => x.kind === 'fusion');
    expect(a).toMatchObject({ kind: 'fusion', instruction: f.name, bytes: f.outputBytes, author: { name: 'Ada' } });
    expect(a!.body).toContain(body);
    expect(DUMP.slice(0, a!.from).split('\n').length, 'anchored on the fusion instruction line').toBe(line);
    expect(lineText).toContain(a!.quote.exact);
    expect(a!.quote.exact).toContain(`%${f.name} = `);

    const md = await (await fetch(`${server.url}/api/rooms/${room.id}/export.md`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).text();
    expect(md).toContain(`### **fusion** · \`${f.name}\` · `);
    expect(md).toContain(`attention.hlo-opt.txt, line ${line} — Ada`);
    expect(md).toContain(`> ${body}`);
    expect(errors).toEqual([]);
  });
});
