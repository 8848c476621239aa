import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Annotation } from '@seam/shared/model';
import { testAppWithDump, TINY_HLO, type TestApp, type TestRoom } from '../testing';

let t: TestApp;
let room: TestRoom;
let docId: string;
beforeEach(async () => {
  ({ t, room, docId } = await testAppWithDump('room', 'd'));
});
afterEach(() => t.close());

const path = () => `/api/rooms/${room.id}/annotations`;

describe('annotations API', () => {
  it('creates an annotation with its quote, commits it to the log, and lists it', async () => {
    const res = await t.call('POST', path(), { token: room.tokens.annotator, json: { docId, from: 12, to: 17, kind: 'fusion', body: 'entry', author: { name: 'Ada', color: '#abcdef' } } });
    expect(res.status).toBe(201);
    const a = (await res.json()) as Annotation;
    expect(a).toMatchObject({ docId, from: 12, to: 17, kind: 'fusion', body: 'entry', resolved: false, replies: [], author: { name: 'Ada', color: '#abcdef' } });
    expect(a.quote).toEqual({ prefix: 'HloModule m\n', exact: 'ENTRY', suffix: ' e {\n  ROOT p = f32[4]{0} parame' });
    const logged = t.deps.store.db.prepare('SELECT count(*) AS n FROM room_updates WHERE room_id = ?').get(room.id) as { n: number };
    expect(logged.n).toBeGreaterThan(0);
    const list = (await (await t.call('GET', path(), { token: room.tokens.viewer })).json()) as { annotations: Annotation[] };
    expect(list.annotations).toEqual([a]);
  });

  it('replies, edits, resolves, reopens and deletes', async () => {
    const a = (await (await t.call('POST', path(), { token: room.tokens.owner, json: { docId, from: 0, to: 9, kind: 'question', body: 'why?' } })).json()) as Annotation;
    const reply = await t.call('POST', `${path()}/${a.id}/replies`, { token: room.tokens.annotator, json: { body: 'because' } });
    expect(reply.status).toBe(201);
    const edited = await t.call('PATCH', `${path()}/${a.id}`, { token: room.tokens.annotator, json: { body: 'why so?', resolved: true } });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ body: 'why so?', resolved: true, replies: [{ body: 'because' }] });
    const reopened = await t.call('PATCH', `${path()}/${a.id}`, { token: room.tokens.owner, json: { resolved: false } });
    expect(await reopened.json()).toMatchObject({ resolved: false });
    expect((await t.call('DELETE', `${path()}/${a.id}`, { token: room.tokens.annotator })).status).toBe(204);
    expect((await t.call('DELETE', `${path()}/${a.id}`, { token: room.tokens.annotator })).status).toBe(404);
    expect((await t.call('POST', `${path()}/${a.id}/replies`, { token: room.tokens.annotator, json: { body: 'late' } })).status).toBe(404);
    expect((await t.call('PATCH', `${path()}/${a.id}`, { token: room.tokens.owner, json: { resolved: true } })).status).toBe(404);
  });

  it.each([
    ['an unknown kind', { kind: 'rant' }],
    ['from after to', { from: 5, to: 2 }],
    ['a negative offset', { from: -1 }],
    ['a fractional offset', { to: 2.5 }],
    ['a range past the end of the text', { to: TINY_HLO.length + 1 }],
    ['a missing body', { body: undefined }],
  ])('answers 400 for %s', async (_, change) => {
    const res = await t.call('POST', path(), { token: room.tokens.owner, json: { docId, from: 0, to: 3, kind: 'note', body: 'x', ...change } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
  });

  it('answers 404 for a document of another room and 400 for an empty patch', async () => {
    const other = await t.room();
    const res = await t.call('POST', `/api/rooms/${other.id}/annotations`, { token: other.tokens.owner, json: { docId, from: 0, to: 1, kind: 'note', body: 'x' } });
    expect(res.status).toBe(404);
    const a = (await (await t.call('POST', path(), { token: room.tokens.owner, json: { docId, from: 0, to: 1, kind: 'note', body: 'x' } })).json()) as Annotation;
    expect((await t.call('PATCH', `${path()}/${a.id}`, { token: room.tokens.owner, json: {} })).status).toBe(400);
  });

  it('refuses viewers with 403 and strangers with 401 on every write', async () => {
    const body = { docId, from: 0, to: 1, kind: 'note', body: 'x' };
    expect((await t.call('POST', path(), { token: room.tokens.viewer, json: body })).status).toBe(403);
    expect((await t.call('POST', path(), { json: body })).status).toBe(401);
    expect((await t.call('GET', path())).status).toBe(401);
    const a = (await (await t.call('POST', path(), { token: room.tokens.owner, json: body })).json()) as Annotation;
    expect((await t.call('POST', `${path()}/${a.id}/replies`, { token: room.tokens.viewer, json: { body: 'x' } })).status).toBe(403);
    expect((await t.call('PATCH', `${path()}/${a.id}`, { token: room.tokens.viewer, json: { resolved: true } })).status).toBe(403);
    expect((await t.call('DELETE', `${path()}/${a.id}`, { token: room.tokens.viewer })).status).toBe(403);
    const list = (await (await t.call('GET', path(), { token: room.tokens.viewer })).json()) as { annotations: Annotation[] };
    expect(list.annotations.map((x) => x.resolved)).toEqual([false]);
  });
});

describe('annotations on a trace', () => {
  /** A Perfetto JSON trace of two events of one op, as XLA tags them. */
  const TRACE = JSON.stringify({
    traceEvents: [
      { ph: 'X', name: 'fusion.3', pid: 1, tid: 1, ts: 100, dur: 10, args: { hlo_op: 'fusion.3', hlo_module: 'jit_f' } },
      { ph: 'X', name: 'fusion.3', pid: 1, tid: 1, ts: 120, dur: 10, args: { hlo_op: 'fusion.3', hlo_module: 'jit_f' } },
    ],
  });
  let traceId: string;
  beforeEach(async () => {
    const res = await t.call('POST', `/api/rooms/${room.id}/documents?title=f.trace.json`, { token: room.tokens.owner, body: TRACE, headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).toBe(201);
    traceId = ((await res.json()) as { id: string }).id;
  });

  it('creates op and range annotations with their anchors and lists them', async () => {
    const op = await t.call('POST', path(), { token: room.tokens.annotator, json: { docId: traceId, from: 0, to: 0, kind: 'fusion', body: 'hot', trace: { type: 'op', op: 'fusion.3', module: 'jit_f' } } });
    expect(op.status).toBe(201);
    const range = await t.call('POST', path(), { token: room.tokens.annotator, json: { docId: traceId, from: 0, to: 0, kind: 'question', body: 'gap?', trace: { type: 'range', fromUs: 10, toUs: 20, track: 'XLA Ops' } } });
    expect(range.status).toBe(201);
    const list = (await (await t.call('GET', path(), { token: room.tokens.viewer })).json()) as { annotations: Annotation[] };
    expect(list.annotations.map((a) => [a.docId, a.quote.exact, a.trace])).toEqual([
      [traceId, '', { type: 'op', op: 'fusion.3', module: 'jit_f' }],
      [traceId, '', { type: 'range', fromUs: 10, toUs: 20, track: 'XLA Ops' }],
    ]);
  });

  it.each([
    ['a trace anchor on a dump', () => ({ docId, trace: { type: 'op', op: 'p', module: 'm' } })],
    ['a character range on a trace', () => ({ docId: traceId, from: 0, to: 0 })],
    ['a range that ends before it starts', () => ({ docId: traceId, trace: { type: 'range', fromUs: 20, toUs: 10 } })],
    ['a time past a year', () => ({ docId: traceId, trace: { type: 'range', fromUs: 0, toUs: 1e300 } })],
    ['a negative time', () => ({ docId: traceId, trace: { type: 'range', fromUs: -5, toUs: 10 } })],
    ['an op name of 501 characters', () => ({ docId: traceId, trace: { type: 'op', op: 'x'.repeat(501), module: 'm' } })],
    ['an unknown anchor type', () => ({ docId: traceId, trace: { type: 'line', line: 3 } })],
    ['character offsets beside a trace anchor', () => ({ docId: traceId, to: 3, trace: { type: 'op', op: 'p', module: 'm' } })],
  ])('answers 400 for %s', async (_, change) => {
    const res = await t.call('POST', path(), { token: room.tokens.owner, json: { from: 0, to: 0, kind: 'note', body: 'x', ...change() } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
  });
});
