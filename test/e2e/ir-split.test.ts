import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '@seam/shared/ir';
import { openAs, type Person } from '../helpers/browser';
import { openDumpRoom, type DumpRoom } from '../helpers/dump-room';
import { addDocument, createRoom } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';
import { openDocument, splitPane } from './ir-kit';

const JAXPR = fixture('mlp', 'jaxpr.txt');
const SHLO = fixture('mlp', 'stablehlo-debug.mlir');
const HLO = fixture('mlp', 'hlo-opt.txt');

let lab: DumpRoom;
let server: DumpRoom['server'];
let browser: DumpRoom['browser'];
let ada: Person;
let bo: Person;
const errors: string[] = [];

beforeAll(async () => {
  lab = await openDumpRoom({ roomTitle: 'MLP at three layers', dumpTitle: 'mlp.jaxpr', dump: JAXPR, more: [['mlp.stablehlo', SHLO], ['mlp.hlo-opt', HLO]], lineText: 'lambda' }, errors);
  ({ server, browser, ada, bo } = lab);
});

afterAll(async () => {
  await lab?.close();
});

describe('the MLP at three layers, side by side', () => {
  it('hovering the jaxpr dot_general lights up the StableHLO dot_general and the HLO that holds it', async () => {
    await ada.page.getByRole('button', { name: 'Split view' }).click();
    const j = splitPane(ada.page, 'mlp.jaxpr');
    const s = splitPane(ada.page, 'mlp.stablehlo');
    const h = splitPane(ada.page, 'mlp.hlo-opt');
    for (const p of [j, s, h]) await p.locator('.cm-line').first().waitFor();
    await j.locator('.cm-line', { hasText: '= dot_general[' }).hover();

    const linkedShlo = s.locator('.cm-line.cm-ir-linked');
    await expect.poll(() => linkedShlo.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await linkedShlo.allTextContents()).toEqual([expect.stringContaining('stablehlo.dot_general')]);

    const linkedHlo = await h.locator('.cm-line.cm-ir-linked').allTextContents();
    expect(linkedHlo.length).toBeGreaterThan(0);
    // The dot itself (fused or not), and when fused, the fusion instruction that calls it.
    expect(linkedHlo.some((t) => /= \S+ (dot|fusion|custom-call)\(/.test(t))).toBe(true);
    for (const t of linkedHlo) expect(t).toMatch(/\b(dot|fusion|custom-call|convolution)\(/);

    // Moving to an unrelated equation moves the highlight with it.
    await j.locator('.cm-line', { hasText: '= reduce_sum[' }).hover();
    await expect.poll(async () => (await s.locator('.cm-line.cm-ir-linked').allTextContents()).join('\n')).toContain('stablehlo.reduce');
  });

  it('shows the presenter\'s hovered line to a follower', async () => {
    await ada.page.getByRole('button', { name: 'Present' }).click();
    await openDocument(bo.page, 'mlp.jaxpr', 'lambda');
    await splitPane(ada.page, 'mlp.stablehlo').locator('.cm-line', { hasText: 'stablehlo.dot_general' }).hover();
    const remote = bo.page.locator('.cm-line.cm-ir-linked-remote');
    await expect.poll(() => remote.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect((await remote.allTextContents()).join('\n')).toContain('= dot_general[');
  });

  it('shows the mapping table and exports it as Markdown with a row for every equation', async () => {
    await ada.page.getByRole('button', { name: 'Mapping' }).click();
    const mapping = ada.page.getByRole('region', { name: 'Mapping' });
    await mapping.locator('summary', { hasText: 'Markdown' }).click();
    const md = mapping.getByRole('textbox', { name: 'Mapping Markdown' });
    await expect.poll(async () => (await md.count()) > 0 && (await md.inputValue()).length > 0, { timeout: 15_000 }).toBe(true);
    const text = await md.inputValue();
    const equations = analyze(JAXPR, 'jaxpr').index.keys;
    expect(equations.length).toBeGreaterThan(5);
    const rows = text.split('\n').filter((l) => l.startsWith('| ')).slice(1);
    expect(rows).toHaveLength(equations.length);
    for (const k of equations) expect(text).toContain(`| ${k.line} | ${k.name} | ${k.op} |`);
    const dot = rows.find((r) => r.includes('| dot_general |'));
    expect(dot).toMatch(/stablehlo\.dot_general/);
    expect(await mapping.getByRole('note').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('says why the StableHLO column is empty when the StableHLO has no debug info', async () => {
    const plain = await createRoom(server, 'MLP without locations');
    await addDocument(server, plain.id, plain.tokens.owner, 'mlp.jaxpr', JAXPR);
    await addDocument(server, plain.id, plain.tokens.owner, 'mlp-plain.stablehlo', fixture('mlp', 'stablehlo.mlir'));
    await addDocument(server, plain.id, plain.tokens.owner, 'mlp.hlo-opt', HLO);
    const cy = await openAs(browser, plain.links.owner, 'Cy', errors);
    await cy.page.locator('.cm-line', { hasText: 'lambda' }).first().waitFor();
    await cy.page.getByRole('button', { name: 'Split view' }).click();
    await cy.page.getByRole('button', { name: 'Mapping' }).click();
    const note = cy.page.getByRole('region', { name: 'Mapping' }).getByRole('note');
    await expect.poll(() => note.textContent(), { timeout: 15_000 }).toContain('mlp-plain.stablehlo was printed without loc(…) debug info');
    await cy.context.close();
    expect(errors).toEqual([]);
  });
});
