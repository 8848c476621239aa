import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { ROLES, RoomKey, SettingKey, type Role } from '@seam/shared/model';
import type { AppDeps } from '../app';
import { authorize } from '../auth/require';
import { ingestDocument } from '../ingest';
import { assertUnlocked } from '../room-lock';
import { captureRoutes } from '../routes/captures';
import { runnerRoutes } from '../routes/runners';
import type { Store } from '../store';
import type { RoomDirectory } from '../store/shared-store';
import { postgresRunnerRegistry } from '../store/postgres/runner-registry';
import { sqliteSharedStore } from '../store/sqlite-shared-store';
import type { Rooms } from '../sync/rooms';
import { carryAnnotations } from './carry';
import { connectPgJobSignal } from './pg-job-signal';
import { JobQueue } from './queue';
import { RunnerTokens } from './runner-tokens';
import { CaptureService, type CaptureSink, type CaptureStores, type JobTimings } from './service';

/** The embedded store's job queue and runner tokens behind the capture service's stores (each call answered at once). */
export function embeddedCaptureStores(store: Store, now: () => number = Date.now): CaptureStores {
  const queue = new JobQueue(store.db, now);
  const shared = sqliteSharedStore(store, queue, false, now);
  return { jobs: shared.jobs, tokens: shared.runnerTokens };
}

/** What the capture service is built over: the app's deps (embedded, or scaled with the shared store). */
export type CaptureDeps = Pick<AppDeps, 'config' | 'store' | 'content' | 'rooms' | 'texts' | 'log' | 'analyzer' | 'traceReducers' | 'scaled'>;

/**
 * Builds the capture service over the server's stores and rooms: dumps go through the shared
 * ingest, a re-run's annotations are carried over. Embedded mode: the SQLite queue and tokens.
 * Scaled mode: the shared store's (PostgreSQL), with job notices on a `LISTEN` connection of its
 * own (throws when PostgreSQL cannot be reached) and the runners of every instance listed in PostgreSQL.
 */
export async function createCaptureService(deps: CaptureDeps, log: Logger, timings: Partial<JobTimings> = {}): Promise<CaptureService> {
  const sink: CaptureSink = {
    ingest: (roomId, doc) => ingestDocument(deps, roomId, doc.title, doc.text, { kind: doc.kind, addedBy: doc.addedBy, captureId: doc.captureId }),
    publish: (roomId, entry) => {
      // Loaded first: in scaled mode the room may not be held by this instance. Entries of one room
      // are written in the order published. The store has committed it before `transact` resolves;
      // a failed commit has closed the room's sockets.
      deps.rooms.load(roomId)
        .then((room) => room.transact((d) => d.getMap(RoomKey.captures).set(entry.id, { ...entry })))
        .catch((err: unknown) => log.error({ err, roomId }, 'capture entry not stored'));
    },
    carry: (roomId, previous, next) => carryAnnotations(deps, roomId, previous, next),
  };
  const { scaled } = deps;
  const databaseUrl = deps.config.scaled?.databaseUrl;
  const stores: CaptureStores = scaled && databaseUrl !== undefined
    ? { jobs: scaled.shared.jobs, tokens: scaled.shared.runnerTokens, signal: await connectPgJobSignal(databaseUrl, log), runners: postgresRunnerRegistry(databaseUrl) }
    : embeddedCaptureStores(deps.store);
  return new CaptureService(stores, sink, log, timings);
}

/** Scaled mode keeps runner tokens in PostgreSQL, which the synchronous local-runner token cannot reach. */
export class LocalRunnerTokenError extends Error {
  override name = 'LocalRunnerTokenError';
}

/**
 * Mints the token of the server's own runner named `name`, revoking older live ones of that name.
 * Embedded mode only: scaled mode starts no local runner, and throws {@link LocalRunnerTokenError}.
 */
export function localRunnerToken(deps: Pick<AppDeps, 'store' | 'scaled'>, name: string): string {
  if (deps.scaled) throw new LocalRunnerTokenError('scaled mode starts no local runner; create runner tokens in the shared store');
  return new RunnerTokens(deps.store.db).rotate(name).token;
}

/** The capture and runner routes, with room roles checked through the room directory (the shared one in scaled mode). */
export function jobRoutes(deps: { readonly store: Store; readonly directory?: RoomDirectory | undefined; readonly rooms: Rooms; readonly jobs: CaptureService }): Hono {
  const roleOf = async (c: Context, roomId: string) => (await authorize(c, deps, roomId, ROLES)).role;
  const allowAnnotatorCapture = async (roomId: string) => (await deps.rooms.load(roomId)).doc.getMap(RoomKey.settings).get(SettingKey.allowAnnotatorCapture) === true;
  const unlocked = async (roomId: string, role: Role) => {
    await deps.rooms.load(roomId);
    assertUnlocked(deps.rooms, roomId, role);
  };
  const app = new Hono();
  app.route('/', captureRoutes({ jobs: deps.jobs, roleOf, allowAnnotatorCapture, assertUnlocked: unlocked }));
  app.route('/', runnerRoutes({ jobs: deps.jobs, roleOf }));
  return app;
}
