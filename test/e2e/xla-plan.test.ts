import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openAs, type Person } from '../helpers/browser';
import { useWebRig } from '../helpers/web-rig';
import { addDocument, createRoom } from '../helpers/server';
import { openDocument } from './ir-kit';

/** The MLP compiled by XLA:CPU with `--xla_dump_to` (test/fixtures/xla-dump/README.md). */
const file = (suffix: string): string => readFileSync(new URL(`../fixtures/xla-dump/mlp/module_0000.jit_mlp.${suffix}`, import.meta.url), 'utf8');
const HLO_TITLE = 'module_0000.jit_mlp.cpu_after_optimizations.txt';
const BA_TITLE = 'module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt';
const HLO = file('cpu_after_optimizations.txt');
const BA = file('cpu_after_optimizations-buffer-assignment.txt');

const rig = useWebRig();
let ada: Person;
const errors: string[] = [];

beforeAll(async () => {
  const room = await createRoom(rig.server, 'MLP: XLA’s plan');
  await addDocument(rig.server, room.id, room.tokens.owner, HLO_TITLE, HLO);
  await addDocument(rig.server, room.id, room.tokens.owner, BA_TITLE, BA);
  ada = await openAs(rig.browser, room.links.owner, 'Ada', errors);
});

describe('XLA’s buffer assignment beside the optimized HLO', () => {
  it('shows the allocation XLA made for a spill candidate, and the estimate against XLA’s plan', async () => {
    await openDocument(ada.page, HLO_TITLE, 'HloModule jit_mlp');
    await ada.page.getByRole('tab', { name: 'Spills' }).click();
    const panel = ada.page.getByRole('region', { name: 'Spills' });
    const row = panel.getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').filter({ hasText: 'wrapped_convert.1' });
    // From the buffer assignment: ` value: <30 wrapped_convert.1 @0> (size=8192,offset=0)` in `allocation 7: size 8832, preallocated-temp`.
    const allocation = row.locator('.allocation');
    await expect.poll(async () => (await allocation.textContent()) ?? '', { timeout: 15_000 }).toContain('allocation 7');
    expect((await allocation.textContent())?.replace(/\s+/g, ' ').trim()).toBe('XLA: allocation 7 (preallocated-temp), 8 KiB at offset 0 of 8.6 KiB');
    const summary = panel.getByLabel('XLA\'s plan');
    expect(await summary.getAttribute('data-estimate')).toBe('8832');
    expect(await summary.getAttribute('data-allocated')).toBe('8832');
    expect(await summary.textContent()).toContain('3 of 3 candidates');
  });

  it('lists the allocations, sorts them by size, and opens a value’s HLO line', async () => {
    await ada.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /buffer-assignment/ }).click();
    const view = ada.page.getByRole('region', { name: 'Buffer assignment' });
    const table = view.getByRole('table', { name: 'Allocations' });
    await table.waitFor();
    const sizes = async () => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-size'))));
    expect(await sizes()).toEqual([16384, 4096, 256, 64, 4, 4, 4, 8832]);
    await view.getByRole('button', { name: /^Sort by size/ }).click();
    expect(await sizes()).toEqual([16384, 8832, 4096, 256, 64, 4, 4, 4]);
    expect(await view.locator('.summary').getAttribute('data-total')).toBe('29644');
    expect(await table.locator('tr[data-allocation="0"] td').nth(2).innerText()).toBe('parameter 1\nbf16[64,128]');

    await table.locator('tr[data-allocation="7"]').getByRole('button', { name: 'ynn_fusion' }).click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toMatch(/^\s*%?ynn_fusion = f32\[32\]\{0\} fusion\(/);
    expect(errors).toEqual([]);
  });

  it('shows a buffer assignment’s own text as text, never as markup', async () => {
    const room = await createRoom(rig.server, 'hostile plan');
    await addDocument(rig.server, room.id, room.tokens.owner, 'evil buffer-assignment', 'BufferAssignment:\nallocation 0: size 4, constant:\n value: <1 <img src=x onerror="window.pwned=1"> @0> (size=4,offset=0): f32[]\n');
    const eve = await openAs(rig.browser, room.links.viewer, 'Eve', errors);
    const view = eve.page.getByRole('region', { name: 'Buffer assignment' });
    await view.getByRole('list', { name: 'Problems' }).waitFor();
    expect(await view.textContent()).toContain('expected ` value: <id name> (size=S,offset=O): shape`');
    expect(await eve.page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await eve.page.locator('img[src="x"]').count()).toBe(0);
  });
});

describe('a Pallas TPU kernel in optimized HLO', () => {
  it('lists the tpu_custom_call as a kernel with its name, and ranks its output read back by a fusion as a spill', async () => {
    const room = await createRoom(rig.server, 'Pallas matmul');
    const text = readFileSync(new URL('../fixtures/xla-dump/tpu/pallas-matmul.hlo', import.meta.url), 'utf8');
    await addDocument(rig.server, room.id, room.tokens.owner, 'pallas-matmul.hlo', text);
    const cy = await openAs(rig.browser, room.links.viewer, 'Cy', errors);
    await cy.page.locator('.cm-line', { hasText: 'HloModule jit_func' }).first().waitFor();
    await cy.page.getByRole('tab', { name: 'Spills' }).click();
    const panel = cy.page.getByRole('region', { name: 'Spills' });
    const kernel = panel.getByRole('table', { name: 'Custom-call kernels' }).locator('tbody tr');
    await expect.poll(() => kernel.count(), { timeout: 15_000 }).toBe(1);
    expect((await kernel.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(['custom-call.3 matmul_kernel', 'tpu_custom_call', '2.5 MiB', '1 MiB']);
    const spill = panel.getByRole('table', { name: 'Spill candidates by traffic' }).getByRole('row').nth(1);
    expect(await spill.getAttribute('data-bytes')).toBe(String(1024 * 256 * 4));
    expect(await spill.textContent()).toContain('custom-call.3');
    await kernel.getByRole('button', { name: 'custom-call.3' }).click();
    await expect.poll(async () => (await cy.page.locator('.cm-activeLine').textContent()) ?? '').toMatch(/^\s*%custom-call\.3 = f32\[1024,256\]/);
  });
});

describe('a dump folder compiled with --xla_dump_hlo_pass_re=.*', () => {
  it('lists the module’s passes in order, names where the fusion formed, opens that pass, and joins the peak from the live ranges', async () => {
    const room = await createRoom(rig.server, 'MLP passes');
    const dir = new URL('../fixtures/xla-dump/mlp-passes/', import.meta.url);
    const form = new FormData();
    for (const name of readdirSync(dir)) form.append('file', new Blob([readFileSync(new URL(name, dir))]), `mlp-passes/${name}`);
    const res = await fetch(`${rig.server.url}/api/rooms/${room.id}/imports`, { method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}` }, body: form });
    expect(res.status).toBe(201);
    const bo = await openAs(rig.browser, room.links.owner, 'Bo', errors);
    await openDocument(bo.page, 'after optimizations (cpu)', 'HloModule jit_mlp');
    const passes = bo.page.getByRole('region', { name: 'Pass sequence' });
    const rows = passes.getByRole('list', { name: 'Passes in order' }).getByRole('listitem');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    const formed = rows.filter({ hasText: 'formed ynn_fusion' });
    expect(await formed.count()).toBe(1);
    expect(await formed.getAttribute('data-fusions')).toBe('1');
    expect(await formed.textContent()).toContain('after dot-library-rewriter (dot-library-passes)');
    // Passes that changed nothing counted are folded away until asked for.
    const folded = await rows.count();
    await passes.getByRole('checkbox', { name: 'Only passes that changed something' }).uncheck();
    expect(await rows.count()).toBe(33);
    expect(folded).toBeLessThan(33);

    await bo.page.getByRole('tab', { name: 'Spills' }).click();
    const spill = bo.page.getByRole('region', { name: 'Spills' }).getByRole('row').filter({ hasText: 'ynn_fusion' }).locator('.allocation');
    await expect.poll(async () => (await spill.textContent()) ?? '', { timeout: 15_000 }).toContain('live at the peak');

    await bo.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: /^BUFS buffer assignment / }).click();
    const view = bo.page.getByRole('region', { name: 'Buffer assignment' });
    const ynn = view.locator('tr[data-allocation="7"] li').filter({ hasText: 'ynn_fusion' });
    await expect.poll(async () => (await ynn.textContent()) ?? '', { timeout: 15_000 }).toContain('peak');
    expect(await view.locator('tr[data-allocation="7"] li').filter({ hasText: 'wrapped_convert.1' }).textContent()).not.toContain('peak');
    expect(await view.locator('.summary').textContent()).toMatch(/XLA’s total 28\.9 KiB\s+· peak 20\.4 KiB at step 6/);

    await formed.getByRole('button').first().click();
    await expect.poll(async () => (await bo.page.locator('.tabs .tab').textContent()) ?? '').toBe('mlp-passes/module_0000.jit_mlp.0022.dot-library-passes.after_dot-library-rewriter.before_pipeline-end.txt');
    await bo.page.locator('.cm-line', { hasText: 'HloModule jit_mlp' }).first().waitFor();
    expect(errors).toEqual([]);
  });
});
