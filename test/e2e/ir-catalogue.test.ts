import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openAs, type Person } from '../helpers/browser';
import { useWebRig } from '../helpers/web-rig';
import { addDocument, createRoom } from '../helpers/server';
import { lineOf, openDocument } from './ir-kit';
import { archive, postImport, TYPES } from '../helpers/import-kit';

const read = (path: string): string => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
/** A remat'd, scanned bf16 program's optimized HLO, and an MLP with and without jax.checkpoint. */
const TRAIN = read('joins/train/hlo-opt.txt');
const REMAT = read('diff/mlp_remat/hlo-opt.txt');
const PLAIN = read('diff/mlp/hlo-opt.txt');
/** The bf16 MLP's HLO before and after optimization, as XLA dumps them into one module group. */
const DUMP = ['before_optimizations.txt', 'cpu_after_optimizations.txt'].map((f) => `module_0000.jit_mlp.${f}`);
/** A sharded MLP with and without with_sharding_constraint, each in jaxpr, StableHLO and optimized HLO, as JAX and XLA name their dumps. */
const shardedDump = (folder: string, name: string) => [
  { name: `${folder}/jax_000001_sharded_mlp.jaxpr.txt`, data: read(`diff/${name}/jaxpr.txt`) },
  { name: `${folder}/jax_ir0001_jit_sharded_mlp_compile.mlir`, data: read(`diff/${name}/stablehlo-debug.mlir`) },
  { name: `${folder}/module_0000.jit_sharded_mlp.cpu_after_optimizations.txt`, data: read(`diff/${name}/hlo-opt.txt`) },
];
/** A custom call whose target is markup: the catalogue shows it as text. */
const HOSTILE = 'HloModule hostile\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(p), custom_call_target="<b>bold</b>|x"\n}\n';

const rig = useWebRig();
let ada: Person;
const errors: string[] = [];

beforeAll(async () => {
  const room = await createRoom(rig.server, 'Catalogue');
  await addDocument(rig.server, room.id, room.tokens.owner, 'train.hlo-opt', TRAIN);
  await addDocument(rig.server, room.id, room.tokens.owner, 'mlp_remat.hlo-opt', REMAT);
  await addDocument(rig.server, room.id, room.tokens.owner, 'mlp.hlo-opt', PLAIN);
  await addDocument(rig.server, room.id, room.tokens.owner, 'hostile.hlo', HOSTILE);
  await addDocument(rig.server, room.id, room.tokens.owner, 'notes.txt', 'plain words, no program');
  const tar = archive('tar', DUMP.map((name) => ({ name, data: read(`xla-dump/mlp/${name}`) })));
  const imported = await postImport(rig.server, room, tar, TYPES.tar, room.tokens.owner);
  if (imported.status !== 201 && imported.status !== 200) throw new Error(`import answered ${imported.status}`);
  // One import per dump folder, as each run of the program writes its own.
  for (const [folder, name] of [['plain', 'sharded'], ['constrained', 'sharded_constraint']] as const) {
    const sharded = await postImport(rig.server, room, archive('tar', shardedDump(folder, name)), TYPES.tar, room.tokens.owner);
    if (sharded.status !== 201 && sharded.status !== 200) throw new Error(`import answered ${sharded.status}`);
  }
  ada = await openAs(rig.browser, room.links.owner, 'Ada', errors);
});

describe('the operator catalogue', () => {
  it('lists the remat regions and the casts with their counts, and opens an entry on its line', async () => {
    await openDocument(ada.page, 'train.hlo-opt', 'HloModule');
    await ada.page.getByRole('button', { name: 'Catalogue' }).click();
    const cat = ada.page.getByRole('region', { name: 'Catalogue' });
    const ops = cat.getByRole('table', { name: 'Operators' });
    const row = (entry: string) => ops.locator(`tr[data-entry="${entry}"]`);
    await row('cast: f32 → bf16').waitFor({ timeout: 20_000 });
    // Read off the file: six converts from f32 to bf16, four from bf16 to f32; 15 recomputed ops under rematted_computation.
    expect(await row('cast: f32 → bf16').textContent()).toContain('6×, 9,216 B');
    expect(await row('cast: bf16 → f32').textContent()).toContain('4×, 12,288 B');
    expect(await row('remat: recomputed (rematted_computation)').textContent()).toContain('15×');
    expect(await cat.getByRole('table', { name: 'lower() vs compile()' }).textContent()).toContain('optimized HLO');

    const line = lineOf(TRAIN, '%convert_element_type.37 = bf16[16,32]');
    expect(line).toBe(175);
    await row('cast: f32 → bf16').getByRole('button', { name: String(line), exact: true }).click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toContain('convert_element_type.37 = bf16[16,32]');
  });

  it('catalogues the checkpointed MLP against the plain one and says what the plain one lacks', async () => {
    await openDocument(ada.page, 'mlp_remat.hlo-opt', 'HloModule');
    const cat = ada.page.getByRole('region', { name: 'Catalogue' });
    await cat.locator('tr[data-entry="remat: checkpointed region"]').waitFor({ timeout: 20_000 });
    await cat.getByRole('combobox', { name: 'Catalogue against' }).selectOption({ label: 'mlp.hlo-opt' });
    const onlyHere = cat.getByRole('list', { name: 'Only here' });
    await expect.poll(async () => (await onlyHere.count()) > 0 ? await onlyHere.textContent() : '', { timeout: 20_000 }).toContain('remat: checkpointed region (30)');
    expect(await onlyHere.textContent()).toContain('remat: recomputed (rematted_computation) (22)');
    expect(await cat.getByRole('list', { name: 'Only there' }).textContent()).toBe('nothing');

    await ada.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await cat.getByRole('button', { name: 'Copy Markdown' }).click();
    const md = await ada.page.evaluate(() => navigator.clipboard.readText());
    expect(md).toContain('# Catalogue: mlp_remat.hlo-opt');
    expect(md).toContain('## Against mlp.hlo-opt');
    expect(md).toContain('- remat: checkpointed region (30)');
  });

  it('cards a module group’s HLO before and after optimization, and opens a cast in the layer it is in', async () => {
    const group = ada.page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: 'module 0000 jit_mlp', exact: true });
    if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
    await ada.page.getByRole('list', { name: 'module 0000 jit_mlp', exact: true }).getByRole('button', { name: /after optimizations \(cpu\)/ }).click();
    await ada.page.locator('.cm-line', { hasText: 'HloModule jit_mlp' }).first().waitFor();
    const cat = ada.page.getByRole('region', { name: 'Catalogue' });
    const card = cat.getByRole('table', { name: 'lower() vs compile()' });
    await card.locator('tbody tr').nth(1).waitFor({ timeout: 20_000 });
    // 55 and 74 lines (3,215 and 4,202 bytes): 1.35 times the lines after optimization.
    const rows = await Promise.all([0, 1].map(async (i) => (await card.locator('tbody tr').nth(i).locator('td').allTextContents()).join(' ')));
    expect(rows).toEqual([
      expect.stringMatching(/^HLO before 55 3,215 1\.00 1\.00 24 /),
      expect.stringMatching(/^optimized HLO 74 4,202 1\.35 1\.31 30 .* 4 \(kLoop 3, kCustom 1\) 0 0$/),
    ]);
    const row = cat.locator('tr[data-entry="cast: f32 → bf16"]');
    expect((await row.textContent())?.replace(/\s+/g, ' ')).toContain('1×');
    const before = read(`xla-dump/mlp/${DUMP[0]}`);
    const line = before.split('\n')[51] ?? '';
    expect(line).toMatch(/ convert\(/);
    await row.locator('td').nth(2).getByRole('button', { name: '52', exact: true }).click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toBe(line);
  });

  it('lists the shardings a sharded module carries, the constraint only where it is, and opens a sharding on its line', async () => {
    await ada.page.setViewportSize({ width: 1440, height: 900 });
    const docs = ada.page.getByRole('list', { name: 'Documents' });
    const group = docs.getByRole('button', { name: 'module 0000 jit_sharded_mlp · constrained', exact: true });
    if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
    await docs.getByRole('list', { name: 'module 0000 jit_sharded_mlp · constrained', exact: true }).getByRole('button', { name: /after optimizations \(cpu\)/ }).click();
    await ada.page.locator('.cm-line', { hasText: 'HloModule jit_sharded_mlp' }).first().waitFor();
    const cat = ada.page.getByRole('region', { name: 'Catalogue' });
    const row = (entry: string) => cat.locator(`tr[data-entry="${entry.replace(/"/g, '\\"')}"]`);
    await row('sharding: sharding-constraint').waitFor({ timeout: 20_000 });
    // jaxpr line 23 and StableHLO line 24 hold the constraint; line 88 of the optimized HLO the all-gather XLA added for it.
    expect((await row('sharding: sharding-constraint').locator('td').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'sharding', 'sharding-constraint', '1×, 16,384 B 23', '1×, 16,384 B 24', '',
    ]);
    expect((await row('collective: all-gather').textContent())?.replace(/\s+/g, ' ')).toContain('1×, 4,096 B 88');
    // The shardings carried as attributes: the Shardy mesh and argument shardings, the optimized module's parameter shardings.
    const shardings = await cat.locator('tr[data-entry^="sharding: "]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-entry')));
    expect(shardings).toEqual([
      'sharding: #sdy.sharding<@mesh, [{"data"}, {}]>',
      'sharding: #sdy.sharding<@mesh, [{}, {"model"}]>',
      'sharding: sdy.mesh @mesh = <["data"=4, "model"=2]>',
      'sharding: sharding-constraint',
      'sharding: {devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}',
      'sharding: {devices=[4,1,2]<=[8] last_tile_dim_replicate}',
    ]);
    // A long sharding wraps in its cell rather than widening the table past the panel.
    const box = await cat.boundingBox();
    const table = await cat.getByRole('table', { name: 'Operators' }).boundingBox();
    expect(table && box && table.width <= box.width).toBe(true);

    await cat.getByRole('combobox', { name: 'Catalogue against' }).selectOption({ label: 'module 0000 jit_sharded_mlp · plain' });
    const onlyHere = cat.getByRole('list', { name: 'Only here' });
    await expect.poll(async () => (await onlyHere.count()) > 0 ? await onlyHere.textContent() : '', { timeout: 20_000 }).toContain('sharding: sharding-constraint (1)');
    expect(await onlyHere.locator('li').allTextContents()).toEqual(['sharding: sharding-constraint (1)', 'collective: all-gather (1)', 'cast: u32 → s32 (1)']);
    expect(await cat.getByRole('list', { name: 'Only there' }).textContent()).toBe('nothing');
    await ada.page.screenshot({ path: join(tmpdir(), 'seam-catalogue-sharded-1440.png') });

    // The first argument's sharding opens the StableHLO on line 5, the function's signature.
    const signature = row('sharding: #sdy.sharding<@mesh, [{"data"}, {}]>').getByRole('button', { name: '5', exact: true });
    // The argument and the result on that one line: one button, both named in its title.
    expect(await signature.getAttribute('title')).toBe('%arg0: argument, result: result');
    await signature.click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toContain('%arg0: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}');
    expect(errors).toEqual([]);
  });

  it('shows a custom call target written as markup as text, and says when a group holds no program', async () => {
    await openDocument(ada.page, 'hostile.hlo', 'HloModule hostile');
    const cat = ada.page.getByRole('region', { name: 'Catalogue' });
    const row = cat.locator('tr[data-entry="custom-call: <b>bold</b>|x"]');
    await row.waitFor({ timeout: 20_000 });
    expect(await row.locator('b').count()).toBe(0);
    expect(await row.locator('td').nth(1).textContent()).toBe('<b>bold</b>|x');

    await openDocument(ada.page, 'notes.txt', 'plain words');
    await expect.poll(async () => await cat.getByRole('status').textContent()).toBe('This group holds no jaxpr, StableHLO or HLO.');
    expect(errors).toEqual([]);
  });
});
