import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { launchBrowser, startWebServer, WEB_DIST } from '../helpers/browser';
import { createRoom } from '../helpers/server';

/**
 * `npm run screenshot`: a room with the naive-attention dumps, annotations of every kind and three
 * people, as the owner sees it, written to `docs/screenshot.png`. Builds the web app first if needed.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/ir/attention/', import.meta.url));

if (!existsSync(join(WEB_DIST, 'index.html'))) spawnSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });

const server = await startWebServer();
const browser = await launchBrowser();
try {
  const room = await createRoom(server, 'Naive attention lab');
  const post = async (path: string, body: unknown, token = room.tokens.owner) => {
    const res = await fetch(`${server.url}/api/rooms/${room.id}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const docs: Record<string, { id: string; text: string }> = {};
  for (const [file, title] of [['jaxpr.txt', 'attention.jaxpr'], ['stablehlo-debug.mlir', 'attention.shlo'], ['hlo-opt.txt', 'attention.hlo-opt']] as const) {
    const text = readFileSync(join(FIXTURE, file), 'utf8');
    docs[file] = { id: (await post('/documents', { title, text })).id, text };
  }
  const hlo = docs['hlo-opt.txt'];
  if (!hlo) throw new Error('the attention fixture is missing hlo-opt.txt');
  const ada = { name: 'Ada', color: '#1971c2' };
  const bo = { name: 'Bo', color: '#d9480f' };
  const cy = { name: 'Cy', color: '#2b8a3e' };
  const range = (needle: string) => {
    const from = hlo.text.indexOf(needle);
    if (from < 0) throw new Error(`not in the dump: ${needle}`);
    return { from, to: from + needle.length };
  };
  const mark = (needle: string, kind: string, body: string, author: typeof ada) => post('/annotations', { docId: hlo.id, ...range(needle), kind, body, author });
  const spill = await mark('%wrapped_convert.2 = bf16[8192,8192]{1,0} fusion(%dot_general.2)', 'spill', 'The S×S score matrix: 134,217,728 B written to HBM, then read back by the softmax.', bo);
  await post(`/annotations/${spill.id}/replies`, { body: 'Matches the profiler within 12%. A flash-attention kernel would keep it on chip.', author: ada });
  await mark('%convert_exponential_fusion = f32[8192,8192]{1,0} fusion', 'fusion', 'exp and the max-subtraction fused into one loop kernel.', ada);
  const q = await mark('%dot_general.3 = f32[8192,128]{1,0} dot(', 'question', 'Why is this dot in f32 when the inputs are bf16?', cy);
  await post(`/annotations/${q.id}/replies`, { body: 'The convert_convert fusion upcasts before it; see line 163.', author: bo });
  await mark('ROOT %wrapped_convert.4', 'note', 'Output cast back to bf16.', ada);

  const open = async (link: string, who: typeof ada) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 860 } });
    await context.addInitScript((p) => localStorage.setItem('seam.identity', JSON.stringify(p)), { id: `shot-${who.name}`, ...who });
    const page = await context.newPage();
    await page.goto(link);
    return { page };
  };
  const owner = await open(room.links.owner, ada);
  const annotator = await open(room.links.annotator, bo);
  const viewer = await open(room.links.viewer, cy);
  for (const p of [owner, annotator, viewer]) {
    await p.page.getByRole('button', { name: /attention\.hlo-opt/ }).click();
    await p.page.locator('.cm-line').first().waitFor();
  }
  await owner.page.getByRole('region', { name: 'Annotations' }).getByRole('button', { name: 'Go to range' }).first().click();
  await annotator.page.getByRole('region', { name: 'Annotations' }).getByRole('button', { name: 'Go to range' }).nth(2).click();
  await owner.page.locator('.cm-remote-selection[title="Bo"]').first().waitFor();
  await owner.page.getByRole('list', { name: 'Participants' }).getByRole('listitem').nth(2).waitFor();
  await owner.page.getByRole('status', { name: 'Save status' }).getByText('saved').waitFor();
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  await owner.page.screenshot({ path: join(ROOT, 'docs/screenshot.png') });
  console.log('wrote docs/screenshot.png');
} finally {
  await browser.close();
  await server.close();
}
