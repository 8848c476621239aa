import * as Y from 'yjs';
import * as awarenessProtocol from 'y-protocols/awareness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RoomKey } from '@seam/shared/model';
import { encodeAwarenessMessage } from '@seam/shared/protocol';
import { readPresenterSample } from '@seam/shared/teaching';
import { DEFAULT_LIMITS, SyncMode } from '../../config';
import { Metrics } from '../../metrics';
import { openStore, type Store } from '../../store';
import { Connection, type SocketLike } from '../../sync/connection';
import { GroupCommit } from '../../sync/group-commit';
import { Room } from '../../sync/room';
import { HistoryRowKind } from './history-store';
import { PRESENTER_SAMPLE_MS } from './room-history';

const log = pino({ level: 'silent' });
const socket = (): SocketLike => ({ send: () => undefined, close: () => undefined });

let dir: string;
let store: Store;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
  dir = mkdtempSync(join(tmpdir(), 'seam-presenter-'));
  store = openStore(dir, SyncMode.normal);
  store.rooms.create({ id: 'r', title: 't', createdAt: 1 }, { owner: Buffer.alloc(32, 1), annotator: Buffer.alloc(32, 2), viewer: Buffer.alloc(32, 3) });
});
afterEach(() => {
  vi.useRealTimers();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A room with a presenter and a student, each a real connection sending awareness messages as a browser does. */
function classroom() {
  const metrics = new Metrics();
  const room = new Room('r', {
    updates: store.updates, commits: new GroupCommit({ updates: store.updates, metrics, log }), metrics, limits: DEFAULT_LIMITS, compactCount: 500, compactBytes: 1 << 22, log,
  });
  const person = (role: 'owner' | 'viewer', name: string) => {
    const conn = new Connection(socket(), role, name, false, { ...DEFAULT_LIMITS, awarenessPerSecond: 10_000 }, metrics);
    room.join(conn);
    const aw = new awarenessProtocol.Awareness(new Y.Doc());
    const say = (state: Record<string, unknown>) => {
      aw.setLocalState({ user: { id: name, name, color: '#112233' }, ...state });
      room.receive(conn, encodeAwarenessMessage(awarenessProtocol.encodeAwarenessUpdate(aw, [aw.clientID])));
    };
    return { conn, clientID: aw.clientID, say };
  };
  const presenter = person('owner', 'Grace');
  const student = person('viewer', 'Sam');
  room.transact((doc) => {
    const p = doc.getMap(RoomKey.presenter);
    p.set('clientId', presenter.clientID);
    p.set('userId', 'grace-id');
    p.set('name', 'Grace');
  });
  return { room, presenter, student };
}

const samples = () =>
  store.updates.history.page('r', 0, Number.MAX_SAFE_INTEGER, undefined, 1000, 1 << 20).rows
    .filter((r) => r.kind === HistoryRowKind.presenter)
    .map((r) => ({ at: r.at, view: JSON.parse(new TextDecoder().decode(r.data)) as unknown }));
const view = (docId: string, topLine: number, anchor = 0, head = 0) => ({ view: { docId, topLine, anchor, head } });

describe('presenter samples', () => {
  it('records where the presenter is when it changes, at most four times a second, the last of a burst when its slot comes', () => {
    const { room, presenter } = classroom();
    presenter.say(view('hlo', 1));
    expect(samples()).toHaveLength(1);
    for (let line = 2; line <= 40; line++) {
      vi.advanceTimersByTime(10);
      presenter.say(view('hlo', line, 5, 9));
    }
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    const got = samples();
    // 390 ms of scrolling: the first sample, one when the slot reopened, and the last position.
    expect(got.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < got.length; i++) expect((got[i]?.at ?? 0) - (got[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(PRESENTER_SAMPLE_MS);
    expect(readPresenterSample(got.at(-1)?.view)).toEqual({ docId: 'hlo', topLine: 40, anchor: 5, head: 9, userId: 'grace-id', name: 'Grace' });
    expect(got[0]?.view).toMatchObject({ docId: 'hlo', topLine: 1 });
    // Nothing changed: nothing more is recorded, however long the room waits.
    presenter.say(view('hlo', 40, 5, 9));
    vi.advanceTimersByTime(10 * PRESENTER_SAMPLE_MS);
    expect(samples()).toHaveLength(got.length);
    room.destroy();
  });

  it('never records a student\'s awareness, and records that nobody presents once the presenter stops', () => {
    const { room, presenter, student } = classroom();
    student.say(view('secret-doc', 7));
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    expect(samples()).toEqual([]);
    presenter.say(view('hlo', 3));
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    for (let i = 0; i < 20; i++) {
      student.say(view('secret-doc', 8 + i));
      vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    }
    expect(samples().map((s) => s.view)).toEqual([{ docId: 'hlo', topLine: 3, anchor: 0, head: 0, userId: 'grace-id', name: 'Grace' }]);
    expect(JSON.stringify(samples())).not.toContain('secret-doc');
    room.transact((doc) => doc.getMap(RoomKey.presenter).clear());
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    expect(samples().map((s) => s.view).at(-1)).toBeNull();
    room.destroy();
  });

  it('records nothing for a presenter whose view is malformed', () => {
    const { room, presenter } = classroom();
    presenter.say({ view: { docId: 'x'.repeat(500), topLine: 3 } });
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    presenter.say({ view: { docId: 'hlo', topLine: -4 } });
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    presenter.say({ view: 'hlo:3' });
    vi.advanceTimersByTime(PRESENTER_SAMPLE_MS);
    expect(samples()).toEqual([]);
    room.destroy();
  });
});
