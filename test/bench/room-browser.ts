import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Shared pieces of the browser-room benchmarks: a synthetic dump shaped like optimized HLO, and a
 * context whose identity is already chosen so that a page opens straight into the room.
 */

/** `lines` lines of HLO-like text, about `bytesPerLine` bytes each; every line is unique. */
export function syntheticDump(lines: number, bytesPerLine = 100): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const head = `  %fusion.${i} = f32[8192,128]{1,0} fusion(%param_0.${i}, %add.${i}), kind=kLoop, calls=%fc.${i}`;
    out.push(head.length >= bytesPerLine - 1 ? head : head + ' '.repeat(bytesPerLine - 1 - head.length));
  }
  return out.join('\n');
}

/** A browser context whose local identity is set before any page script runs. */
export async function personContext(browser: Browser, name: string, color = '#1971c2'): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(
    ([n, c]) => localStorage.setItem('seam.identity', JSON.stringify({ id: `bench-${n}`, name: n, color: c })),
    [name, color] as const,
  );
  return context;
}

/** Opens the room at `url` and the synthetic dump titled `title`, and waits until its first line is drawn. */
export async function openSyntheticDump(page: Page, url: string, title: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: new RegExp(title.replace('.', '\\.')) }).click();
  await page.locator('.cm-line', { hasText: '%fusion.0 ' }).waitFor({ timeout: 60_000 });
}
