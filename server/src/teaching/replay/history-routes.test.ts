import * as Y from 'yjs';
import { fromBase64 } from 'lib0/buffer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAnnotations } from '@seam/shared/model';
import { MAX_HISTORY_PAGE, readHistoryLine, type HistoryLine } from '@seam/shared/teaching';
import { testApp, TINY_HLO, type TestApp, type TestRoom } from '../../testing';

let t: TestApp;
let room: TestRoom;
let docId: string;
beforeEach(async () => {
  t = testApp();
  room = await t.room('Week 3: <b>spills</b>');
  docId = await t.addDocument(room, 'step.hlo', TINY_HLO);
});
afterEach(() => t.close());

const history = (query = '', token = room.tokens.viewer, id = room.id) => t.call('GET', `/api/rooms/${id}/history${query}`, { token });
const lines = async (res: Response): Promise<HistoryLine[]> =>
  (await res.text()).trim().split('\n').map((l) => {
    const x = readHistoryLine(l);
    if (!x) throw new Error(`not a history line: ${l}`);
    return x;
  });
async function ask(body: string, name = 'Sam', from = 12, to = 20): Promise<string> {
  const res = await t.call('POST', `/api/rooms/${room.id}/annotations`, { token: room.tokens.annotator, json: { docId, from, to, kind: 'question', body, author: { name } } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const reply = async (aid: string, body: string, name = 'Grace') =>
  expect((await t.call('POST', `/api/rooms/${room.id}/annotations/${aid}/replies`, { token: room.tokens.owner, json: { body, author: { name } } })).status).toBe(201);

/** Every page from `query` on, following each `more`. */
async function all(query = '', limit = 3): Promise<HistoryLine[]> {
  const out: HistoryLine[] = [];
  let after = '';
  for (;;) {
    const page = await lines(await history(`?limit=${limit}${query}${after}`));
    out.push(...page.filter((l) => l.type !== 'more'));
    const more = page.find((l) => l.type === 'more');
    if (!more) return out;
    after = `&after=${more.next}`;
  }
}

describe('history API', () => {
  it('pages the whole history to any member, readers too, and it rebuilds the room document', async () => {
    const q = await ask('why does this fusion spill?');
    await reply(q, 'the S×S value does not fit');
    await ask('what is %p?');
    const got = await all();
    expect(got[0]?.type).toBe('start');
    expect(got.filter((l) => l.type === 'start')).toHaveLength(1);
    const doc = new Y.Doc();
    for (const l of got) {
      if (l.type === 'start') Y.applyUpdate(doc, fromBase64(l.base));
      if (l.type === 'update') Y.applyUpdate(doc, fromBase64(l.data));
    }
    expect(readAnnotations(doc)).toEqual(readAnnotations(t.deps.rooms.get(room.id).doc));
    const times = got.flatMap((l) => (l.type === 'update' ? [l.at] : []));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const token of [room.tokens.owner, room.tokens.annotator]) expect((await history('', token)).status).toBe(200);
  });

  it('keeps to the time range asked for', async () => {
    await ask('first');
    const all0 = await all();
    const cut = Math.max(...all0.flatMap((l) => (l.type === 'update' ? [l.at] : [])));
    await new Promise((r) => setTimeout(r, 5));
    await ask('second');
    const late = (await all(`&from=${cut + 1}`)).filter((l) => l.type === 'update');
    expect(late.length).toBeGreaterThan(0);
    for (const l of late) expect(l.type === 'update' && l.at).toBeGreaterThan(cut);
    const early = (await all(`&to=${cut}`)).filter((l) => l.type === 'update');
    expect(early.length).toBe(all0.filter((l) => l.type === 'update').length);
  });

  it('refuses bad ranges, cursors and page sizes with a named error, and strangers and unknown rooms', async () => {
    for (const q of ['?from=-1', '?from=abc', '?to=1e3', '?from=10&to=5', '?to=99999999999999999', '?after=12', '?after=1.2.3', '?limit=0', `?limit=${MAX_HISTORY_PAGE + 1}`, '?from=1.5']) {
      const res = await history(q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    }
    expect((await t.call('GET', `/api/rooms/${room.id}/history`)).status).toBe(401);
    const other = await t.room('other');
    expect((await history('', other.tokens.owner)).status).toBe(401);
    expect((await history('', room.tokens.owner, 'no-such-room')).status).toBe(401);
    expect((await t.call('GET', `/api/rooms/${room.id}/history/summary.md`, { token: other.tokens.viewer })).status).toBe(401);
    // A range as wide as time is simply paged.
    const wide = await lines(await history(`?from=0&to=8640000000000000&limit=1`));
    expect(wide.at(-1)?.type).toBe('more');
  });

  it('sums up the session in Markdown: who asked what, where and what was answered, in time order, user text inert', async () => {
    const h = t.deps.store.updates.history;
    const grace = { topLine: 1, anchor: 0, head: 0, userId: 'g', name: 'Grace' };
    h.recordPresenter(room.id, Date.now(), { ...grace, docId });
    h.recordPresenter(room.id, Date.now(), { ...grace, docId, topLine: 3 });
    h.recordPresenter(room.id, Date.now(), null);
    const first = await ask('why does <script>alert(1)</script> [spill](javascript:x) here?', '# Sam');
    await reply(first, 'because *the* `S×S` value is 256 MiB', 'Grace | owner');
    await ask('second question', 'Ada');
    const res = await t.call('GET', `/api/rooms/${room.id}/history/summary.md`, { token: room.tokens.viewer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    const md = await res.text();
    expect(md).toContain('# Session: Week 3: &lt;b&gt;spills&lt;/b&gt;');
    expect(md).toContain('## Questions (2)');
    expect(md).toMatch(/### 1\. # Sam asked at \d\d:\d\d:\d\d, on step\.hlo, line 2/);
    expect(md).toContain('Question: why does &lt;script&gt;alert(1)&lt;/script&gt; \\[spill\\](javascript:x) here?');
    expect(md).toMatch(/- Answer by Grace \\\| owner at \d\d:\d\d:\d\d: because \\\*the\\\* \\`S×S\\` value is 256 MiB/);
    expect(md.indexOf('# Sam asked')).toBeLessThan(md.indexOf('Ada asked'));
    expect(md).toContain('- No answer yet.');
    expect(md).toMatch(/## Where the presenter went\n\n- \d\d:\d\d:\d\d · Grace presents step\.hlo, from line 1\n- \d\d:\d\d:\d\d · nobody presents\n/);
    expect(md).not.toMatch(/<script|[^\\]\]\(javascript/);
  });
});
