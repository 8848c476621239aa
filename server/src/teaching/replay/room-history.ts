import type { Awareness } from 'y-protocols/awareness';
import type * as Y from 'yjs';
import type { Logger } from 'pino';
import { RoomKey } from '@seam/shared/model';
import { MAX_SAMPLE_ID, MAX_SAMPLE_NAME, MAX_SAMPLE_NUMBER, type PresenterSample } from '@seam/shared/teaching';
import type { ReplayHistory } from '../../store/shared-store';
import type { HistoryLimits, HistoryStore } from './history-store';

/** The presenter's position is recorded at most once per this many ms (4 a second); a later change waits for the next slot. */
export const PRESENTER_SAMPLE_MS = 250;

export interface RoomHistoryDeps {
  readonly roomId: string;
  readonly doc: Y.Doc;
  /** The room's awareness, holding only states the server applied (each client ID's own socket's). */
  readonly awareness: Awareness;
  /** Where samples go: the embedded store's history (answered at once), or the shared one (scaled mode). */
  readonly store: Pick<HistoryStore, 'recordPresenter' | 'trim'> | Pick<ReplayHistory, 'recordPresenter' | 'trim'>;
  readonly limits: HistoryLimits;
  readonly log: Logger;
  /** The clock, ms since 1970 (default `Date.now`): tests drive it. */
  readonly now?: () => number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const whole = (v: unknown, min: number): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= min ? Math.min(Math.floor(v), MAX_SAMPLE_NUMBER) : undefined;

/**
 * Where the presenter is, read from the room's `presenter` map and that client's awareness `view`:
 * `null` when nobody presents, `undefined` when the presenter's state is missing or says no
 * well-formed position (nothing is recorded then).
 */
export function presenterSample(doc: Y.Doc, awareness: Awareness): PresenterSample | null | undefined {
  const p = doc.getMap(RoomKey.presenter);
  const clientId = p.get('clientId');
  if (typeof clientId !== 'number') return null;
  const view = (awareness.getStates().get(clientId) as { view?: unknown } | undefined)?.view;
  if (!isObj(view)) return undefined;
  const topLine = whole(view.topLine, 1);
  const docId = view.docId === null || view.docId === undefined ? null : view.docId;
  if (topLine === undefined || (docId !== null && (typeof docId !== 'string' || docId.length === 0 || docId.length > MAX_SAMPLE_ID))) return undefined;
  const userId = p.get('userId');
  const name = p.get('name');
  return {
    docId,
    topLine,
    anchor: whole(view.anchor, 0) ?? 0,
    head: whole(view.head, 0) ?? 0,
    userId: typeof userId === 'string' ? userId.slice(0, MAX_SAMPLE_ID) : '',
    name: typeof name === 'string' ? name.slice(0, MAX_SAMPLE_NAME) : '',
  };
}

/**
 * A loaded room's part in its replay history: samples the presenter's position when it changes,
 * at most every `PRESENTER_SAMPLE_MS` (the last change of a burst is recorded when its slot comes),
 * never anyone else's; and after each commit keeps the history within its bounds.
 */
export class RoomHistory {
  /** The JSON of the last sample recorded; nobody presenting is where a freshly loaded room starts. */
  private last = 'null';
  private lastAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly presenter;

  constructor(private readonly deps: RoomHistoryDeps) {
    this.now = deps.now ?? (() => Date.now());
    this.presenter = deps.doc.getMap(RoomKey.presenter);
    deps.awareness.on('change', this.changed);
    this.presenter.observe(this.changed);
  }

  private readonly changed = (): void => {
    if (this.timer) return;
    const wait = this.lastAt + PRESENTER_SAMPLE_MS - this.now();
    if (wait <= 0) return this.sample();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sample();
    }, wait);
    this.timer.unref();
  };

  private sample(): void {
    const s = presenterSample(this.deps.doc, this.deps.awareness);
    if (s === undefined) return;
    const json = JSON.stringify(s);
    if (json === this.last) return;
    const at = this.now();
    const failed = (err: unknown) => this.deps.log.warn({ err, room: this.deps.roomId }, 'presenter sample not recorded');
    let written: unknown;
    try {
      written = this.deps.store.recordPresenter(this.deps.roomId, at, s);
    } catch (err) {
      return failed(err);
    }
    const before = { last: this.last, lastAt: this.lastAt };
    this.last = json;
    this.lastAt = at;
    // The shared store answers later: a sample it refused is not counted as recorded, so the next change records it.
    if (written instanceof Promise) {
      written.catch((err: unknown) => {
        failed(err);
        if (this.last === json) ({ last: this.last, lastAt: this.lastAt } = before);
      });
    }
  }

  /** After a commit: drops the oldest history past the room's bounds. A failure leaves it as it was (logged). */
  committed(): void {
    const failed = (err: unknown) => this.deps.log.warn({ err, room: this.deps.roomId }, 'history trim failed; it stays as it is');
    try {
      const trimmed: unknown = this.deps.store.trim(this.deps.roomId, this.deps.limits, this.now());
      if (trimmed instanceof Promise) trimmed.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  destroy(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.deps.awareness.off('change', this.changed);
    this.presenter.unobserve(this.changed);
  }
}
