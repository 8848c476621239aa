import { readFileSync } from 'node:fs';
import * as Y from 'yjs';
import { fromBase64 } from 'lib0/buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnnotations, RoomKey } from '@seam/shared/model';
import { readHistoryLine, type DrillEntry, type DrillMineView, type HistoryLine, type LabResults } from '@seam/shared/teaching';
import { SharedInvitations } from '../../server/src/auth/invitations';
import { runInviteCli } from '../../server/src/cli/invite';
import { openPostgresStore, type PostgresStore } from '../../server/src/store/postgres';
import { answerEvents } from '../../server/src/teaching/answer-events';
import { RedisDrillSignal } from '../../server/src/teaching/drill-signal';
import { addDocument, connectClient, waitFor, type CreatedRoom } from '../helpers';
import { useScaledCluster } from '../helpers/scale/scaled-cluster';
import { startRedis } from '../helpers/scale/redis';

/**
 * Scaled mode's teaching: three Seam instances on one PostgreSQL and one Redis, behind HAProxy.
 * Drills, the replay history, labs and invitations are served by any instance: a drill's answers
 * posted to two instances reach the owner's event stream on a third, a session's history written
 * through several instances reads whole through any one, a lab opened on one instance is checked
 * on another, and one use of an invitation is taken once however many instances are asked at once.
 */
const COURSE = readFileSync(new URL('../fixtures/drill/course.stablehlo.mlir', import.meta.url), 'utf8');
const HLO = readFileSync(new URL('../fixtures/ir/mlp/hlo-opt.txt', import.meta.url), 'utf8');
const OPERATOR = 'operator-token-of-the-teaching-cluster-0123456789';

const scaled = useScaledCluster(3, 'seam_teaching', { SEAM_ROOM_CREATION: 'invite', SEAM_OPERATOR_TOKEN: OPERATOR });

let shared: PostgresStore;

beforeAll(async () => {
  shared = await openPostgresStore(scaled.databaseUrl);
});
afterAll(async () => {
  await shared?.close();
});

/** Instance `i`'s own address. */
const { direct } = scaled;

/** `method path` on instance `i` with `token` as a bearer and an optional JSON body. */
function call(i: number, method: string, path: string, token: string, json?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${direct(i).url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
}

/** A room created on instance `i` with `credential` (the operator token unless told). */
async function room(i: number, title: string, credential = OPERATOR): Promise<CreatedRoom> {
  const res = await call(i, 'POST', '/api/rooms', credential, { title });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedRoom;
}

describe('scaled mode teaching', () => {
  it('a drill started on one instance is answered through two others and seen live on the owner\'s stream, then revealed', async () => {
    const r = await room(0, 'drill class');
    const docId = await addDocument(direct(0), r.id, r.tokens.owner, 'course.stablehlo.mlir', COURSE);
    const started = await call(0, 'POST', `/api/rooms/${r.id}/drills`, r.tokens.owner, { docId, seed: 1, count: 3, asks: ['einsum', 'contracting', 'batch'] });
    expect(started.status).toBe(201);
    const drill = (await started.json()) as DrillEntry;
    // Every instance lists it (from the room document, which any instance loads from the shared log).
    for (const i of [1, 2]) {
      const listed = (await (await call(i, 'GET', `/api/rooms/${r.id}/drills`, r.tokens.viewer)).json()) as { drills: DrillEntry[] };
      expect(listed.drills.map((d) => d.id)).toEqual([drill.id]);
    }

    const stream = await call(0, 'GET', `/api/rooms/${r.id}/drills/${drill.id}/events`, r.tokens.owner);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events = answerEvents(stream);
    expect((await events.next()).people).toEqual([]);

    const answer = (i: number, key: string, name: string, questionId: string, text: string) =>
      call(i, 'POST', `/api/rooms/${r.id}/drills/${drill.id}/answers`, r.tokens.annotator, { questionId, answer: text, name, key });
    expect((await answer(1, 'ada-key-0123456789abcdef', 'Ada', 'q1', 'ij,jk->ik')).status).toBe(200);
    let view = await events.next();
    while (view.people.length < 1) view = await events.next();
    expect(view.people.map((p) => p.name)).toEqual(['Ada']);
    expect((await answer(2, 'bob-key-0123456789abcdef', 'Bob', 'q1', 'nope')).status).toBe(200);
    while (view.people.length < 2) view = await events.next();
    expect(view.people.map((p) => p.name)).toEqual(['Ada', 'Bob']);
    expect(view.tally.q1).toEqual({ answered: 2, right: 1 });

    const revealed = await call(0, 'POST', `/api/rooms/${r.id}/drills/${drill.id}/reveal`, r.tokens.owner);
    expect(revealed.status).toBe(200);
    // The revealed drill takes no more answers on any instance, and each person reads their verdict on any.
    expect((await answer(1, 'cy-key-0123456789abcdef0', 'Cy', 'q1', 'x')).status).toBe(409);
    const mine = (await (await call(2, 'GET', `/api/rooms/${r.id}/drills/${drill.id}/answers/mine`, r.tokens.viewer, undefined, { 'x-seam-answer-key': 'ada-key-0123456789abcdef' })).json()) as DrillMineView;
    expect(mine.revealed).toBe(true);
    expect(mine.answers.map((a) => [a.questionId, a.answer])).toEqual([['q1', 'ij,jk->ik']]);
    await events.close();
  });

  it('reads the history of a session written through several instances, updates in commit order and the presenter\'s samples, through any one', async () => {
    const r = await room(0, 'history class');
    const docId = await addDocument(direct(0), r.id, r.tokens.owner, 'step.hlo', HLO);
    // The presenter's socket is on instance 0: its samples are recorded there, into the shared history.
    const presenter = connectClient(direct(0), r.id, r.tokens.owner);
    await presenter.synced();
    presenter.provider.awareness.setLocalState({ user: { id: 'grace', name: 'Grace', color: '#112233' }, view: { docId, topLine: 42, anchor: 0, head: 0 } });
    presenter.doc.transact(() => {
      const p = presenter.doc.getMap(RoomKey.presenter);
      p.set('clientId', presenter.provider.awareness.clientID);
      p.set('userId', 'grace');
      p.set('name', 'Grace');
    });
    const asked: string[] = [];
    for (const [i, body] of [[1, 'why does this fusion spill?'], [2, 'what is %p?'], [1, 'where is the dot?']] as const) {
      const res = await call(i, 'POST', `/api/rooms/${r.id}/annotations`, r.tokens.annotator, { docId, from: 0, to: 5, kind: 'question', body, author: { name: 'Sam' } });
      expect(res.status).toBe(201);
      asked.push(body);
    }
    const read = async (i: number): Promise<HistoryLine[]> => {
      const res = await call(i, 'GET', `/api/rooms/${r.id}/history`, r.tokens.viewer);
      expect(res.status).toBe(200);
      return (await res.text()).trim().split('\n').map((l) => readHistoryLine(l)!);
    };
    await waitFor(async () => (await read(2)).some((l) => l.type === 'presenter' && l.view?.topLine === 42), 'the presenter sample recorded on instance 0 to be read through instance 2');
    for (const i of [1, 2]) {
      const lines = await read(i);
      expect(lines[0]?.type).toBe('start');
      const doc = new Y.Doc();
      for (const l of lines) {
        if (l.type === 'start') Y.applyUpdate(doc, fromBase64(l.base));
        if (l.type === 'update') Y.applyUpdate(doc, fromBase64(l.data));
      }
      expect(readAnnotations(doc).map((a) => a.body).sort()).toEqual([...asked].sort());
      const ids = lines.flatMap((l) => (l.type === 'update' ? [l.id] : []));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const times = lines.flatMap((l) => (l.type === 'update' || l.type === 'presenter' ? [l.at] : []));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const sample = lines.find((l) => l.type === 'presenter' && l.view !== null);
      expect(sample?.type === 'presenter' && sample.view).toMatchObject({ docId, topLine: 42, userId: 'grace', name: 'Grace' });
    }
    const summary = await call(2, 'GET', `/api/rooms/${r.id}/history/summary.md`, r.tokens.viewer);
    expect(summary.status).toBe(200);
    const md = await summary.text();
    for (const body of asked) expect(md).toContain(body);
    presenter.destroy();
  });

  it('opens a lab in a room on one instance and checks it on another', async () => {
    const labs = (await (await call(1, 'GET', '/api/labs', OPERATOR)).json()) as { labs: { id: string }[] };
    const lab = labs.labs[0]!.id;
    const r = await room(0, 'lab room');
    const opened = await call(0, 'POST', `/api/rooms/${r.id}/lab`, r.tokens.owner, { lab });
    expect(opened.status).toBe(201);
    const checked = await call(1, 'POST', `/api/rooms/${r.id}/lab/check`, r.tokens.viewer);
    expect(checked.status).toBe(200);
    const { results } = (await checked.json()) as { results: LabResults };
    expect(results.labId).toBe(lab);
    expect(Object.keys(results.room).length).toBeGreaterThan(0);
    // A room without a lab says so on every instance.
    const plain = await room(2, 'no lab');
    const none = await call(1, 'POST', `/api/rooms/${plain.id}/lab/check`, plain.tokens.viewer);
    expect(none.status).toBe(404);
  });

  it('takes one use of an invitation once when two instances are asked with it at once', async () => {
    const invitations = new SharedInvitations(shared.invitations);
    const once = await invitations.create({ uses: 1, note: 'one room' });
    const answers = await Promise.all([0, 1].map((i) => call(i, 'POST', '/api/rooms', once.secret, { title: `race ${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403]);
    const refused = answers.find((a) => a.status === 403)!;
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invitation_used_up');
    // Used up on every instance, the third too, and listed so in the shared store.
    const third = await call(2, 'POST', '/api/rooms', once.secret, { title: 'late' });
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('invitation_used_up');
    expect((await invitations.list()).find((i) => i.id === once.id)?.usesLeft).toBe(0);
    // An invitation minted once by the operator's command (against PostgreSQL) is honoured by any
    // instance; revoked by the command, by none.
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    expect(await runInviteCli(['create', '--uses', '2'], { SEAM_DATABASE_URL: scaled.databaseUrl, SEAM_DATA_DIR: '/nonexistent' }, io)).toBe(0);
    const secret = /inv_[A-Za-z0-9_-]{43}/.exec(lines.join('\n'))?.[0] ?? '';
    const id = /invitation ([0-9a-f]{12})/.exec(lines.join('\n'))?.[1] ?? '';
    await room(2, 'invited', secret);
    expect((await invitations.list()).find((i) => i.id === id)?.usesLeft).toBe(1);
    expect(await runInviteCli(['revoke', id], { SEAM_DATABASE_URL: scaled.databaseUrl }, io)).toBe(0);
    const revoked = await call(1, 'POST', '/api/rooms', secret, { title: 'revoked' });
    expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe('invitation_revoked');
  });
});

describe('drill signal over Redis', () => {
  it('reaches the watchers of a drill on another instance only, stops when unwatched, and has every watched drill read again after Redis restarts', async () => {
    const own = await startRedis();
    const errors: Error[] = [];
    const [a, b] = await Promise.all([RedisDrillSignal.connect(own.url, (e) => errors.push(e)), RedisDrillSignal.connect(own.url, (e) => errors.push(e))]);
    try {
      let d1 = 0;
      let d2 = 0;
      const unwatch = a.watch('d1', () => d1++);
      a.watch('d2', () => d2++);
      // Published until seen: the subscription is made in the background.
      await waitFor(() => {
        b.changed('d1');
        return d1 > 0;
      }, 'a change on instance b to reach the watcher of d1 on instance a');
      expect(d2).toBe(0);
      // On the publishing instance the change is heard at once, not again from Redis.
      let local = 0;
      b.watch('d3', () => local++);
      b.changed('d3');
      expect(local).toBe(1);

      unwatch();
      const seen = d1;
      b.changed('d1');
      // Published after d1 on the same connection, so heard after it would have been.
      await waitFor(() => {
        b.changed('d2');
        return d2 > 0;
      }, 'd2, still watched, to hear instance b');
      expect(d1).toBe(seen);

      // Redis lost and back: what was published meanwhile is gone, so every watched drill is read again.
      const before = d2;
      await own.kill();
      await own.start();
      await waitFor(() => d2 > before, 'd2 to be read again once the subscriber is back');
      const after = d2;
      await waitFor(() => {
        b.changed('d2');
        return d2 > after;
      }, 'd2 to hear instance b again after the restart');
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await own.close();
    }
  });
});
