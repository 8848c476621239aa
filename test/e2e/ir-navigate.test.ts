import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openAs, startWebServer, type Person } from '../helpers/browser';
import { addDocument, createRoom, type CreatedRoom, type TestServer } from '../helpers/server';
import { fixture } from '../helpers/ir-fixture';
import { openDocument, tokenCentre } from './ir-kit';

/** `x @ w` lowered by JAX: a dot_general of 16x32 · 32x32. */
const SMALL_DOT = [
  'module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {',
  '  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<32x32xf32>) -> (tensor<16x32xf32> {jax.result_info = "result"}) {',
  '    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>',
  '    return %0 : tensor<16x32xf32>',
  '  }',
  '}',
].join('\n');
const HLO = fixture('attention', 'hlo-opt.txt');

let server: TestServer;
let browser: Browser;
let room: CreatedRoom;
let ada: Person;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer(), launchBrowser()]);
  room = await createRoom(server, 'Navigation');
  await addDocument(server, room.id, room.tokens.owner, 'small-dot.mlir', SMALL_DOT);
  await addDocument(server, room.id, room.tokens.owner, 'attention.hlo-opt', HLO);
  ada = await openAs(browser, room.links.owner, 'Ada', errors);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('reading IR in the editor', () => {
  it('decodes a StableHLO dot_general of 16x32 · 32x32 on hover as ij,jk->ik', async () => {
    await openDocument(ada.page, 'small-dot.mlir', 'stablehlo.dot_general');
    const op = ada.page.locator('.cm-line', { hasText: 'stablehlo.dot_general' }).getByText('stablehlo.dot_general');
    // The analysis arrives after the text: the outline shows when it is in.
    await ada.page.getByRole('navigation', { name: 'Outline' }).getByRole('button', { name: /@main/ }).waitFor();
    const tip = ada.page.locator('.cm-ir-hover');
    await expect.poll(async () => {
      await ada.page.mouse.move(0, 0);
      await op.hover();
      return tip.waitFor({ timeout: 2_000 }).then(() => 1, () => 0);
    }, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await tip.textContent()).toContain('ij,jk->ik');
    expect(await tip.textContent()).toContain('lhs 16×32 · rhs 32×32');
  });

  it('shows the bytes of a shape on hover', async () => {
    const tip = ada.page.locator('.cm-ir-hover', { hasText: 'tensor<16x32xf32>: 2,048 B' });
    await expect.poll(async () => {
      await ada.page.mouse.move(0, 0);
      const shape = await tokenCentre(ada.page, 'return %0', '16x32xf32');
      await ada.page.mouse.move(shape.x, shape.y);
      return tip.waitFor({ timeout: 2_000 }).then(() => 1, () => 0);
    }, { timeout: 15_000 }).toBeGreaterThan(0);
  });

  it('goes to the fused computation from a calls= target', async () => {
    await openDocument(ada.page, 'attention.hlo-opt', 'HloModule jit_attention');
    const m = /calls=%?(fused_computation\.2)\b/.exec(HLO)!;
    const target = m[1]!;
    // The calling instruction is near the end of the module: bring it into view.
    await ada.page.locator('.cm-line', { hasText: 'HloModule jit_attention' }).first().click();
    await ada.page.keyboard.press('Control+End');
    const name = await tokenCentre(ada.page, `calls=%${target},`, `%${target}`);
    await ada.page.mouse.click(name.x, name.y);
    await ada.page.keyboard.press('F12');
    const active = ada.page.locator('.cm-activeLine');
    await expect.poll(async () => (await active.textContent()) ?? '').toMatch(new RegExp(`^%?${target.replace('.', '\\.')} \\(.*\\{\\s*$`));
  });

  it('lists computations in the outline and jumps to one', async () => {
    const outline = ada.page.getByRole('navigation', { name: 'Outline' });
    await outline.getByRole('button', { name: /^fused_computation\.2\b/ }).click();
    await expect.poll(async () => (await ada.page.locator('.cm-activeLine').textContent()) ?? '').toMatch(/^%?fused_computation\.2 \(/);
    expect(errors).toEqual([]);
  });
});
