import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** A real-JAX fixture dump, e.g. `fixture('mlp', 'jaxpr.txt')`. */
export function fixture(program: string, file: string): string {
  return readFileSync(new URL(`../fixtures/ir/${program}/${file}`, import.meta.url), 'utf8');
}

/** Opens a document from the room's document list and waits for a line of its text. */
export async function openDocument(page: Page, title: string, lineText: string): Promise<void> {
  await page.getByRole('list', { name: 'Documents' }).getByRole('button', { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).click();
  await page.locator('.cm-line', { hasText: lineText }).first().waitFor();
}

/** The 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not in the text: ${needle}`);
  return text.slice(0, at).split('\n').length;
}
