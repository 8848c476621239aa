import { Hono } from 'hono';
import { toBase64 } from 'lib0/buffer';
import { readAnnotations, ROLES, buildExport } from '@seam/shared/model';
import { MAX_HISTORY_PAGE, MAX_HISTORY_TIME, readPresenterSample, type HistoryLine, type PresenterSample } from '@seam/shared/teaching';
import type { AppDeps } from '../../app';
import { authorize } from '../../auth/require';
import { badRequest } from '../../errors';
import { roomTitle } from '../../room-title';
import { sqliteTeaching } from '../../store/sqlite-shared-store';
import type { Room } from '../../sync/room';
import { HistoryRowKind, type HistoryCursor } from './history-store';
import { sessionSummary } from './session-summary';

/** Most bytes of entries one page carries (a single larger entry still comes alone). */
export const MAX_HISTORY_PAGE_BYTES = 4 * 1024 * 1024;
/** Most presenter samples a summary reads (about four hours of constant scrolling). */
export const MAX_SUMMARY_SAMPLES = 50_000;

/** A time bound of the query: absent is `fallback`; else a whole number of ms from 0 to `MAX_HISTORY_TIME`. */
function timeParam(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) > MAX_HISTORY_TIME) throw badRequest(`${name} must be a time in ms from 0 to ${MAX_HISTORY_TIME}`);
  return Number(raw);
}

/** `after`, the `next` of the previous page: `AT.ID`, both whole numbers. */
function cursorParam(raw: string | undefined): HistoryCursor | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(raw);
  if (!m || Number(m[1]) > MAX_HISTORY_TIME || !Number.isSafeInteger(Number(m[2]))) throw badRequest('after must be the next cursor of a previous page');
  return { at: Number(m[1]), id: Number(m[2]) };
}

/** Commits what `room` has queued (so that it is recorded in the history) and resolves once it is. */
async function committed(room: Room): Promise<void> {
  room.flush();
  await room.settled();
}

function limitParam(raw: string | undefined): number {
  if (raw === undefined) return MAX_HISTORY_PAGE;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_HISTORY_PAGE) throw badRequest(`limit must be from 1 to ${MAX_HISTORY_PAGE}`);
  return Number(raw);
}

/**
 * A room's replay history (docs/protocol.md), for every member (readers too: it holds what they
 * could watch live): `GET /api/rooms/:id/history?from=&to=&after=&limit=` pages the history as
 * NDJSON (`HistoryLine`s; the first page opens with where it starts), and
 * `GET /api/rooms/:id/history/summary.md` is the session as Markdown. Scaled mode: read from the
 * shared history, where every instance's commits and presenter samples are recorded.
 */
export function historyRoutes(deps: AppDeps): Hono {
  const { store, rooms, directory } = deps;
  const history = deps.scaled?.shared.history ?? sqliteTeaching(store).history;
  const app = new Hono();

  app.get('/:id/history', async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, ROLES);
    const from = timeParam('from', c.req.query('from'), 0);
    const to = timeParam('to', c.req.query('to'), MAX_HISTORY_TIME);
    if (from > to) throw badRequest('from must not be after to');
    const after = cursorParam(c.req.query('after'));
    const limit = limitParam(c.req.query('limit'));
    // What is queued is committed (and so recorded) before the page is read.
    const loaded = rooms.loadedRoom(roomId);
    if (loaded) await committed(loaded);
    const lines: HistoryLine[] = [];
    if (!after) {
      const s = await history.start(roomId, Date.now());
      lines.push({ type: 'start', startsAt: s.startsAt, endsAt: s.endsAt, dropped: s.dropped, base: toBase64(s.base) });
    }
    const page = await history.page(roomId, from, to, after, limit, MAX_HISTORY_PAGE_BYTES);
    const dec = new TextDecoder();
    for (const r of page.rows) {
      if (r.kind === HistoryRowKind.update) lines.push({ type: 'update', id: r.id, at: r.at, data: toBase64(r.data) });
      else {
        const v = JSON.parse(dec.decode(r.data)) as unknown;
        const view = v === null ? null : readPresenterSample(v);
        if (view !== undefined) lines.push({ type: 'presenter', id: r.id, at: r.at, view });
      }
    }
    const last = page.rows.at(-1);
    if (page.more && last) lines.push({ type: 'more', next: `${last.at}.${last.id}` });
    return c.body(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', 200, { 'Content-Type': 'application/x-ndjson; charset=utf-8' });
  });

  app.get('/:id/history/summary.md', async (c) => {
    const roomId = c.req.param('id');
    await authorize(c, deps, roomId, ROLES);
    const room = await rooms.load(roomId);
    await committed(room);
    const documents = await deps.content.documents.list(roomId);
    const titles = new Map(documents.map((d) => [d.id, d.title]));
    const annotations = readAnnotations(room.doc).filter((a) => a.kind === 'question');
    const quoted = new Set(annotations.map((a) => a.docId));
    // The texts the questions quote, decompressed off the event loop before the summary is built.
    const texts = new Map(await Promise.all(documents.filter((d) => quoted.has(d.id)).map(async (d) => [d.id, await deps.texts.get(d.sha256)] as const)));
    const title = roomTitle(room.doc, (directory ? await directory.get(roomId) : store.rooms.get(roomId))?.title ?? roomId);
    const placed = buildExport({ roomId, title, documents, annotations, textOf: (id) => texts.get(id), now: Date.now() }).annotations;
    const start = await history.start(roomId, Date.now());
    const presenter = (await history.presenterSamples(roomId, MAX_SUMMARY_SAMPLES)).flatMap((s) => {
      const view: PresenterSample | null | undefined = s.view === null ? null : readPresenterSample(s.view);
      return view === undefined ? [] : [{ at: s.at, view }];
    });
    const md = sessionSummary({
      title, startsAt: start.startsAt, endsAt: start.endsAt, dropped: start.dropped, annotations: placed, presenter, titleOf: (id) => titles.get(id) ?? id,
    });
    c.header('Content-Disposition', 'attachment; filename="session.md"');
    return c.body(md, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  return app;
}
