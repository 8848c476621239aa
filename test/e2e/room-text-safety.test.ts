import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Person } from '../helpers/browser';
import { annotateLine, openDumpRoom, type DumpRoom } from '../helpers/dump-room';

const HOSTILE = '<img src=x onerror="window.__xss=1">';
const DUMP = ['HloModule hostile', `// ${HOSTILE} <script>window.__xss=2</script>`, 'ENTRY %main () -> f32[] {', '  ROOT %c = f32[] constant(1)', '}'].join('\n');

let r: DumpRoom;
let ada: Person;
let bo: Person;
const errors: string[] = [];

/** Markup that ran or was parsed: the flag the payload sets, and any img or script element in the app. */
async function injected(page: Page): Promise<{ flag: unknown; imgs: number; scripts: number }> {
  return page.evaluate(() => ({
    flag: (window as unknown as { __xss?: unknown }).__xss ?? null,
    // CodeMirror's own empty cursor-buffer images around widgets are not markup from the text.
    imgs: document.querySelectorAll('#app img:not(.cm-widgetBuffer)').length,
    scripts: document.querySelectorAll('#app script').length,
  }));
}

beforeAll(async () => {
  r = await openDumpRoom(
    { roomTitle: `Room ${HOSTILE}`, dumpTitle: `dump ${HOSTILE}.hlo`, dump: DUMP, lineText: '// <img', adaName: `Ada ${HOSTILE}`.slice(0, 40) },
    errors,
  );
  ({ ada, bo } = r);
});

afterAll(async () => {
  await r?.close();
});

describe('text safety', () => {
  it('renders HTML in a dump, a title, a name and a comment as text', async () => {
    await annotateLine(ada.page, '// <img', 'Note', `look ${HOSTILE}`);

    const panel = bo.page.getByRole('region', { name: 'Annotations' });
    await panel.getByText(`look ${HOSTILE}`).waitFor();
    await bo.page.getByRole('list', { name: 'Participants' }).getByText('Ada <img', { exact: false }).waitFor();
    await bo.page.getByRole('list', { name: 'Documents' }).getByText(`dump ${HOSTILE}.hlo`).waitFor();
    await bo.page.getByRole('heading', { name: `Room ${HOSTILE}` }).waitFor();
    await bo.page.locator('.cm-content .cm-ann-note').first().hover();
    await bo.page.locator('.cm-ann-tooltip').getByText(`look ${HOSTILE}`).waitFor();
    for (const p of [ada, bo]) expect(await injected(p.page)).toEqual({ flag: null, imgs: 0, scripts: 0 });
    expect(errors).toEqual([]);
  });

  it('runs under the Content-Security-Policy without a violation: sync, worker analysis, annotations, tooltips', async () => {
    for (const p of [ada, bo]) {
      await p.context.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { __csp: string[] }).__csp = seen;
        document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
      });
      await p.page.reload();
      await p.page.locator('.cm-line', { hasText: '// <img' }).waitFor();
    }
    await annotateLine(bo.page, 'ENTRY %main', 'Question', 'under the policy');
    await ada.page.getByRole('region', { name: 'Annotations' }).getByText('under the policy').waitFor();
    await ada.page.locator('.cm-content .cm-ann-question').first().hover();
    await ada.page.locator('.cm-ann-tooltip').getByText('under the policy').waitFor();
    for (const p of [ada, bo]) {
      expect(await p.page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp)).toEqual([]);
      expect(await injected(p.page)).toEqual({ flag: null, imgs: 0, scripts: 0 });
    }
    expect(errors).toEqual([]);
  });
});

