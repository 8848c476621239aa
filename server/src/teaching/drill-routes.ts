import { createHash, randomInt } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ROLES, Role } from '@seam/shared/model';
import {
  ANSWER_KEY_HEADER, AnswerBody, AnswerKey, checkAnswer, DRILLABLE_KINDS, generateDrill, MAX_DRILL_PEOPLE, MAX_DRILLS_PER_ROOM,
  readDrills, StartDrillBody, writeDrill,
} from '@seam/shared/teaching';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { newId } from '../auth/tokens';
import { ApiError, badRequest, ErrorCode, notFound } from '../errors';
import { limitBody, validate } from '../routes/validate';
import { sqliteTeaching } from '../store/sqlite-shared-store';
import { DrillHub } from './drill-hub';
import type { StoredDrill } from './drill-store';
import { classViewOf, entryOf, mineViewOf } from './drill-view';

/** How often an idle event stream says it is alive, so that proxies keep it open. */
const PING_MS = 20_000;

/**
 * Runs each call's `fn` after every earlier call with the same key has settled, so that this
 * instance's quota checks and the writes they allow (one drill's answers, one room's new drills)
 * do not interleave across the store's awaits.
 */
function oneAtATime(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, fn) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

/** The person an answer key stands for: its hash, so the key itself is never stored. */
const personOf = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 32);

/**
 * Drills (docs/teaching.md): the owner starts one on a document, members answer privately, the
 * owner watches the answers arrive (an owner-only event stream) and reveals them. Questions, and
 * once revealed the expected answers and the class's tally, are in the room document's `drills`
 * key; who answered what stays in the store, read only by the owner and, for their own, each person.
 * Scaled mode: drills and answers in the shared store, and the owner's stream on any instance
 * hears of an answer posted to any other through `deps.drillSignal` (Redis pub/sub).
 */
export function drillRoutes(deps: AppDeps): Hono {
  const { rooms } = deps;
  const drills = deps.scaled?.shared.drills ?? sqliteTeaching(deps.store).drills;
  const hub = deps.drillSignal ?? new DrillHub();
  const role = (c: Context, roomId: string, roles: readonly Role[]) => authorize(c, deps, roomId, roles);
  const inOrder = oneAtATime();
  const app = new Hono();
  const limit = limitBody(deps.config.limits.requestBytes, 'request body too large');
  app.use('/:id/drills', limit);
  app.use('/:id/drills/*', limit);

  const drillOf = async (roomId: string, drillId: string): Promise<StoredDrill> => {
    const d = await drills.get(roomId, drillId);
    if (!d) throw notFound('no such drill in this room');
    return d;
  };
  const publish = async (d: StoredDrill): Promise<void> => {
    const entry = entryOf(d, d.revealedAt === null ? [] : await drills.answers(d.id));
    await (await rooms.load(d.roomId)).transact((doc) => writeDrill(doc, entry));
  };

  app.get('/:id/drills', async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, ROLES);
    return c.json({ drills: readDrills((await rooms.load(roomId)).doc) });
  });

  app.post('/:id/drills', validate('json', StartDrillBody), async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, [Role.owner]);
    const body = c.req.valid('json');
    const meta = await deps.content.documents.get(roomId, body.docId);
    if (!meta) throw notFound('no such document in this room');
    if (!DRILLABLE_KINDS.includes(meta.kind)) throw badRequest(`a drill is made from a jaxpr, StableHLO or HLO dump, not ${meta.kind}`);
    if ((await drills.countInRoom(roomId)) >= MAX_DRILLS_PER_ROOM) throw new ApiError(ErrorCode.quotaExceeded, `a room holds at most ${MAX_DRILLS_PER_ROOM} drills`);
    const text = await deps.texts.get(meta.sha256);
    if (text === undefined) throw notFound('no such document in this room');
    const items = generateDrill({ docId: meta.id, kind: meta.kind, text }, {
      seed: body.seed ?? randomInt(2 ** 32 - 1), ...(body.count !== undefined ? { count: body.count } : {}), ...(body.asks ? { asks: body.asks } : {}),
    });
    if (items.length === 0) throw badRequest('this document has no dot, fusion or sized value to ask about');
    // Checked again after the text was read: another drill may have been started meanwhile.
    await role(c, roomId, [Role.owner]);
    const drill: StoredDrill = { id: newId(), roomId, docId: meta.id, items, createdAt: Date.now(), revealedAt: null };
    await inOrder(roomId, async () => {
      if ((await drills.countInRoom(roomId)) >= MAX_DRILLS_PER_ROOM) throw new ApiError(ErrorCode.quotaExceeded, `a room holds at most ${MAX_DRILLS_PER_ROOM} drills`);
      await drills.create(drill);
    });
    await publish(drill);
    return c.json(entryOf(drill, []), 201);
  });

  app.post('/:id/drills/:did/answers', validate('json', AnswerBody), async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, ROLES);
    const drill = await drillOf(roomId, c.req.param('did'));
    const body = c.req.valid('json');
    if (drill.revealedAt !== null) throw new ApiError(ErrorCode.conflict, 'the drill is revealed: it takes no more answers');
    const item = drill.items.find((i) => i.question.id === body.questionId);
    if (!item) throw badRequest(`questionId: the drill has no question ${body.questionId}`);
    const person = personOf(body.key);
    const verdict = checkAnswer(item.expected, body.answer);
    await inOrder(drill.id, async () => {
      if (!(await drills.hasPerson(drill.id, person)) && (await drills.people(drill.id)) >= MAX_DRILL_PEOPLE) {
        throw new ApiError(ErrorCode.quotaExceeded, `a drill takes answers from at most ${MAX_DRILL_PEOPLE} people`);
      }
      await drills.answer(drill.id, { person, name: body.name, questionId: item.question.id, answer: body.answer, correct: verdict.correct, answeredAt: Date.now() });
    });
    hub.changed(drill.id);
    // The verdict is not said here: a person learns it when the owner reveals.
    return c.json({ drillId: drill.id, questionId: item.question.id, received: true });
  });

  app.get('/:id/drills/:did/answers/mine', async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, ROLES);
    const drill = await drillOf(roomId, c.req.param('did'));
    const key = AnswerKey.safeParse(c.req.header(ANSWER_KEY_HEADER) ?? '');
    if (!key.success) throw badRequest(`${ANSWER_KEY_HEADER}: ${key.error.issues[0]?.message ?? 'invalid answer key'}`);
    return c.json(mineViewOf(drill, await drills.answersOf(drill.id, personOf(key.data))));
  });

  app.get('/:id/drills/:did/answers', async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, [Role.owner]);
    const drill = await drillOf(roomId, c.req.param('did'));
    return c.json(classViewOf(drill, await drills.answers(drill.id)));
  });

  app.get('/:id/drills/:did/events', async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, [Role.owner]);
    const drillId = (await drillOf(roomId, c.req.param('did'))).id;
    return streamSSE(c, async (stream) => {
      // Answers that arrive in one turn of the event loop (a class answering at once) make one
      // event, sent once the sockets ready in that turn are read; sends run one after another.
      let chain = Promise.resolve();
      let queued = false;
      const send = () => {
        if (queued) return;
        queued = true;
        setImmediate(() => {
          chain = chain.then(async () => {
            queued = false;
            const drill = await drills.get(roomId, drillId);
            if (drill && !stream.aborted) await stream.writeSSE({ event: 'answers', data: JSON.stringify(classViewOf(drill, await drills.answers(drillId))) });
          }).catch((err: unknown) => {
            // The store could not be read: this event is skipped, the next change sends the view again.
            deps.log.warn({ err, drillId }, 'drill answers not read for the event stream');
          });
        });
      };
      send();
      const unwatch = hub.watch(drillId, send);
      const ping = setInterval(() => void stream.writeSSE({ event: 'ping', data: '' }), PING_MS);
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      clearInterval(ping);
      unwatch();
    });
  });

  app.post('/:id/drills/:did/reveal', async (c) => {
    const roomId = c.req.param('id');
    await role(c, roomId, [Role.owner]);
    const drill = await drillOf(roomId, c.req.param('did'));
    await drills.reveal(drill.id, Date.now());
    const revealed = await drillOf(roomId, drill.id);
    await publish(revealed);
    hub.changed(drill.id);
    return c.json(entryOf(revealed, await drills.answers(drill.id)));
  });

  return app;
}
