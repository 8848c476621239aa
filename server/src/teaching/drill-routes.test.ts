import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDrills, type DrillClassView, type DrillEntry, type DrillMineView } from '@seam/shared/teaching';
import { testApp, type TestApp, type TestRoom } from '../testing';
import { answerEvents } from './answer-events';

const COURSE = readFileSync(new URL('../../../test/fixtures/drill/course.stablehlo.mlir', import.meta.url), 'utf8');
const ADA = 'ada-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef';

let t: TestApp;
let room: TestRoom;
let docId: string;
beforeEach(async () => {
  t = testApp();
  room = await t.room('class');
  docId = await t.addDocument(room, 'course.stablehlo.mlir', COURSE);
});
afterEach(() => t.close());

const base = () => `/api/rooms/${room.id}/drills`;
async function start(body: Record<string, unknown> = {}): Promise<DrillEntry> {
  const res = await t.call('POST', base(), { token: room.tokens.owner, json: { docId, seed: 1, count: 3, asks: ['einsum', 'contracting', 'batch'], ...body } });
  expect(res.status).toBe(201);
  return (await res.json()) as DrillEntry;
}
const answer = (drill: DrillEntry, questionId: string, text: string, key = ADA, token = room.tokens.annotator, name = 'Ada') =>
  t.call('POST', `${base()}/${drill.id}/answers`, { token, json: { questionId, answer: text, name, key } });
const mine = async (drill: DrillEntry, key: string, token = room.tokens.viewer): Promise<DrillMineView> =>
  (await (await t.call('GET', `${base()}/${drill.id}/answers/mine`, { token, headers: { 'x-seam-answer-key': key } })).json()) as DrillMineView;
const classView = async (drill: DrillEntry): Promise<DrillClassView> =>
  (await (await t.call('GET', `${base()}/${drill.id}/answers`, { token: room.tokens.owner })).json()) as DrillClassView;

describe('drills API', () => {
  it('starts a drill whose questions, without their answers, are in the room document', async () => {
    const drill = await start();
    expect(drill.questions.map((q) => q.ask)).toEqual(['einsum', 'contracting', 'batch']);
    expect(drill.questions[0]).toMatchObject({ id: 'q1', docId, kind: 'stablehlo' });
    expect(drill.revealed).toBeUndefined();
    const inDoc = readDrills(t.deps.rooms.get(room.id).doc);
    expect(inDoc).toEqual([drill]);
    expect(JSON.stringify(inDoc)).not.toContain('expected');
    const listed = (await (await t.call('GET', base(), { token: room.tokens.viewer })).json()) as { drills: DrillEntry[] };
    expect(listed.drills).toEqual([drill]);
  });

  it('keeps answers private until the owner reveals, then publishes the answers and the tally', async () => {
    const drill = await start();
    const res = await answer(drill, 'q1', 'ab,bc->ac');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ drillId: drill.id, questionId: 'q1', received: true });
    expect((await answer(drill, 'q2', '[0] x [1]')).status).toBe(200);
    expect((await answer(drill, 'q1', 'ij,kj->ik', BOB, room.tokens.viewer, 'Bob')).status).toBe(200);

    expect(await mine(drill, ADA)).toEqual({ drillId: drill.id, revealed: false, answers: [
      { questionId: 'q1', answer: 'ab,bc->ac', at: expect.any(Number) as number },
      { questionId: 'q2', answer: '[0] x [1]', at: expect.any(Number) as number },
    ] });
    expect((await mine(drill, 'someone-elses-key-000')).answers).toEqual([]);

    const view = await classView(drill);
    expect(view.tally).toEqual({ q1: { answered: 2, right: 1 }, q2: { answered: 1, right: 0 }, q3: { answered: 0, right: 0 } });
    expect(view.people.map((p) => [p.name, p.answers.map((a) => [a.questionId, a.correct])])).toEqual([
      ['Ada', [['q1', true], ['q2', false]]],
      ['Bob', [['q1', false]]],
    ]);
    expect(JSON.stringify(readDrills(t.deps.rooms.get(room.id).doc))).not.toContain('ab,bc->ac');

    const revealed = (await (await t.call('POST', `${base()}/${drill.id}/reveal`, { token: room.tokens.owner })).json()) as DrillEntry;
    expect(revealed.revealed).toMatchObject({ answers: { q1: 'ij,jk->ik', q2: '[1] x [0]', q3: 'none' }, tally: view.tally, people: 2 });
    expect(readDrills(t.deps.rooms.get(room.id).doc)).toEqual([revealed]);
    expect(JSON.stringify(revealed)).not.toContain('Ada');
    expect((await mine(drill, ADA)).answers.map((a) => [a.questionId, a.correct])).toEqual([['q1', true], ['q2', false]]);
    const late = await answer(drill, 'q3', 'none');
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: 'conflict' } });
  });

  it('replaces a second answer to the same question: one answer per person and question', async () => {
    const drill = await start();
    await answer(drill, 'q1', 'wrong');
    await answer(drill, 'q1', 'ij,jk->ik', ADA, room.tokens.annotator, 'Ada L.');
    const view = await classView(drill);
    expect(view.tally.q1).toEqual({ answered: 1, right: 1 });
    expect(view.people).toEqual([{ person: expect.any(String) as string, name: 'Ada L.', answers: [{ questionId: 'q1', answer: 'ij,jk->ik', correct: true, at: expect.any(Number) as number }] }]);
  });

  it('lets only the owner start, read the class, watch and reveal', async () => {
    const drill = await start();
    for (const token of [room.tokens.annotator, room.tokens.viewer]) {
      expect((await t.call('POST', base(), { token, json: { docId } })).status).toBe(403);
      expect((await t.call('GET', `${base()}/${drill.id}/answers`, { token })).status).toBe(403);
      expect((await t.call('GET', `${base()}/${drill.id}/events`, { token })).status).toBe(403);
      expect((await t.call('POST', `${base()}/${drill.id}/reveal`, { token })).status).toBe(403);
    }
    expect((await t.call('POST', base(), { json: { docId } })).status).toBe(401);
    expect((await answer(drill, 'q1', 'x', ADA, 'not-a-token')).status).toBe(401);
    const other = await t.room('other');
    expect((await t.call('GET', `${base()}/${drill.id}/answers`, { token: other.tokens.owner })).status).toBe(401);
    expect((await t.call('GET', `/api/rooms/${other.id}/drills/${drill.id}/answers`, { token: other.tokens.owner })).status).toBe(404);
    expect((await t.call('POST', `/api/rooms/${other.id}/drills`, { token: other.tokens.owner, json: { docId } })).status).toBe(404);
    expect(readDrills(t.deps.rooms.get(room.id).doc)[0]?.revealed).toBeUndefined();
  });

  it('streams the class view to the owner as answers arrive', async () => {
    const drill = await start();
    const res = await t.call('GET', `${base()}/${drill.id}/events?token=${room.tokens.owner}`);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = answerEvents(res);
    expect((await events.next()).people).toEqual([]);
    await answer(drill, 'q1', 'ij,jk->ik');
    const after = await events.next();
    expect(after.tally.q1).toEqual({ answered: 1, right: 1 });
    expect(after.people.map((p) => p.name)).toEqual(['Ada']);
    await events.close();
  });
});

describe('drills refuse bad input and change nothing', () => {
  it.each([
    ['an unknown field', { docId: 'x', hack: true }],
    ['no questions', { count: 0 }],
    ['too many questions', { count: 21 }],
    ['an unknown ask', { asks: ['guess'] }],
    ['a fractional seed', { seed: 1.5 }],
  ])('400 when starting with %s', async (_, body) => {
    const res = await t.call('POST', base(), { token: room.tokens.owner, json: { docId, ...body } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
    expect(readDrills(t.deps.rooms.get(room.id).doc)).toEqual([]);
  });

  it('404 for an unknown document or drill, 400 for a dump with nothing to drill', async () => {
    expect((await t.call('POST', base(), { token: room.tokens.owner, json: { docId: 'nope' } })).status).toBe(404);
    const notes = await t.addDocument(room, 'notes.txt', 'just some words\n');
    const res = await t.call('POST', base(), { token: room.tokens.owner, json: { docId: notes } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/jaxpr, StableHLO or HLO|nothing|no dot/);
    expect((await t.call('POST', `${base()}/nope/answers`, { token: room.tokens.viewer, json: { questionId: 'q1', answer: 'x', name: 'A', key: ADA } })).status).toBe(404);
    expect((await t.call('POST', `${base()}/nope/reveal`, { token: room.tokens.owner })).status).toBe(404);
    expect(readDrills(t.deps.rooms.get(room.id).doc)).toEqual([]);
  });

  it.each([
    ['an answer over 200 characters', { answer: 'x'.repeat(201) }],
    ['a short answer key', { key: 'short' }],
    ['an answer key with markup', { key: '<script>alert(1)</script>' }],
    ['an unknown question', { questionId: 'q9' }],
    ['a question id that is not one', { questionId: "q1'; DROP TABLE drills; --" }],
    ['an empty name', { name: '  ' }],
    ['a name over 60 characters', { name: 'n'.repeat(61) }],
    ['an answer that is not a string', { answer: { $gt: '' } }],
  ])('400 for %s, and nothing stored', async (_, change) => {
    const drill = await start();
    const res = await t.call('POST', `${base()}/${drill.id}/answers`, { token: room.tokens.viewer, json: { questionId: 'q1', answer: 'ij,jk->ik', name: 'Ada', key: ADA, ...change } });
    expect(res.status).toBe(400);
    expect((await classView(drill)).people).toEqual([]);
  });

  it('413 for an oversized body', async () => {
    const drill = await start();
    const res = await t.call('POST', `${base()}/${drill.id}/answers`, { token: room.tokens.viewer, json: { questionId: 'q1', answer: 'x', name: 'A', key: ADA, pad: 'x'.repeat(t.deps.config.limits.requestBytes) } });
    expect(res.status).toBe(413);
    expect((await classView(drill)).people).toEqual([]);
  });

  it('stores hostile answer text as text and judges it wrong', async () => {
    const drill = await start();
    const hostile = ['<img src=x onerror=alert(1)>', "'); DROP TABLE drill_answers; --", '𝑖𝑗,𝑗𝑘->𝑖𝑘', '\u202eki>-kj,ji', ''];
    for (const [n, text] of hostile.entries()) expect((await answer(drill, 'q1', text, `${ADA}-${n}`, room.tokens.viewer, `<b>${n}</b>`)).status).toBe(200);
    const view = await classView(drill);
    expect(view.people.map((p) => p.answers[0]?.answer)).toEqual(hostile);
    expect(view.people.map((p) => p.name)).toEqual(hostile.map((_, n) => `<b>${n}</b>`));
    expect(view.tally.q1).toEqual({ answered: hostile.length, right: 0 });
  });

  it('400 for reading one\'s answers without a valid answer key', async () => {
    const drill = await start();
    for (const headers of [{}, { 'x-seam-answer-key': 'short' }] as Record<string, string>[]) {
      const res = await t.call('GET', `${base()}/${drill.id}/answers/mine`, { token: room.tokens.viewer, headers });
      expect(res.status).toBe(400);
    }
  });

  it('holds at most 50 drills in a room', async () => {
    for (let i = 0; i < 50; i++) await start({ seed: i });
    const res = await t.call('POST', base(), { token: room.tokens.owner, json: { docId } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'quota_exceeded' } });
    expect(readDrills(t.deps.rooms.get(room.id).doc)).toHaveLength(50);
  });

  it('takes answers from at most 500 people per drill; one already in may answer again', async () => {
    const drill = await start();
    for (let i = 0; i < 500; i++) expect((await answer(drill, 'q1', 'x', `person-key-${String(i).padStart(8, '0')}`)).status).toBe(200);
    const res = await answer(drill, 'q1', 'x', 'one-too-many-people-key');
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'quota_exceeded' } });
    expect((await answer(drill, 'q2', '[1] x [0]', 'person-key-00000007')).status).toBe(200);
    expect((await classView(drill)).people).toHaveLength(500);
  });

  it('takes answers from at most 500 people when they all answer at once', async () => {
    const drill = await start();
    const keys = Array.from({ length: 510 }, (_, i) => `burst-key-${String(i).padStart(8, '0')}`);
    const statuses = (await Promise.all(keys.map((k) => answer(drill, 'q1', 'x', k)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(500);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    expect((await classView(drill)).people).toHaveLength(500);
  });

  it('holds at most 50 drills when many are started at once', async () => {
    const res = await Promise.all(Array.from({ length: 55 }, (_, i) => t.call('POST', base(), { token: room.tokens.owner, json: { docId, seed: i, count: 1 } })));
    expect(res.filter((r) => r.status === 201)).toHaveLength(50);
    expect(res.filter((r) => r.status === 409)).toHaveLength(5);
  });
});
