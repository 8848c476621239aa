import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { build, type Rolldown } from 'vite';

/**
 * The bare CodeMirror floor of the scroll benchmarks: the pinned `@codemirror/view` with the dump's
 * lines, line numbers and nothing else, so that the scroll figures show what the editor alone costs
 * on this machine, beside the page that draws its own divs (`openFloor`). Its scroller is
 * `.cm-scroller`.
 */
const ENTRY = fileURLToPath(new URL('./bare-codemirror.page.ts', import.meta.url));

let bundle: Promise<string> | null = null;

/** The page script, bundled once per process with the app's own bundler. */
function pageScript(): Promise<string> {
  bundle ??= (async () => {
    const out = await build({
      configFile: false,
      logLevel: 'silent',
      build: { write: false, minify: false, lib: { entry: ENTRY, formats: ['iife'], name: 'SeamBareCodeMirror' } },
    });
    const outputs = (Array.isArray(out) ? out : [out]) as Rolldown.RolldownOutput[];
    const chunk = outputs.flatMap((o) => o.output).find((o) => o.type === 'chunk');
    if (!chunk || chunk.type !== 'chunk') throw new Error('the bare CodeMirror page did not bundle');
    return chunk.code;
  })();
  return bundle;
}

/** Opens the bare CodeMirror floor in `page` with `text`. */
export async function openBareCodeMirror(page: Page, text: string): Promise<void> {
  const script = await pageScript();
  await page.setContent('<!doctype html><meta charset="utf-8"><style>html, body { margin: 0; height: 100%; }</style>');
  await page.addScriptTag({ content: script });
  await page.evaluate((t) => (window as unknown as { __bareCodeMirror: (t: string) => number }).__bareCodeMirror(t), text);
  await page.locator('.cm-line').first().waitFor();
}
