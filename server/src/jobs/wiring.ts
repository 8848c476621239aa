import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { ROLES, RoomKey, SettingKey } from '@seam/shared/model';
import type Database from 'better-sqlite3';
import { requireRole } from '../auth/require';
import { ingestDocument, type IngestDeps } from '../ingest';
import { assertUnlocked } from '../room-lock';
import { captureRoutes } from '../routes/captures';
import { runnerRoutes } from '../routes/runners';
import type { Store } from '../store';
import type { Rooms } from '../sync/rooms';
import { carryAnnotations } from './carry';
import { CaptureService, type CaptureSink, type JobTimings } from './service';

/** Builds the capture service over the server's store and rooms: dumps go through the shared ingest, a re-run's annotations are carried over. */
export function createCaptureService(db: Database.Database, ingest: IngestDeps, log: Logger, timings: Partial<JobTimings> = {}): CaptureService {
  const sink: CaptureSink = {
    ingest: (roomId, doc) => ingestDocument(ingest, roomId, doc.title, doc.text, { kind: doc.kind, addedBy: doc.addedBy, captureId: doc.captureId }),
    publish: (roomId, entry) => {
      // The embedded store has committed it before `transact` returns; a failed commit has closed the room's sockets.
      ingest.rooms.get(roomId).transact((d) => d.getMap(RoomKey.captures).set(entry.id, { ...entry })).catch((err: unknown) => log.error({ err, roomId }, 'capture entry not stored'));
    },
    carry: (roomId, previous, next) => carryAnnotations(ingest, roomId, previous, next),
  };
  return new CaptureService(db, sink, log, timings);
}

/** The capture and runner routes, with room roles checked by the server's `requireRole`. */
export function jobRoutes(deps: { readonly store: Store; readonly rooms: Rooms; readonly jobs: CaptureService }): Hono {
  const roleOf = (c: Context, roomId: string) => requireRole(c, deps.store, roomId, ROLES).role;
  const allowAnnotatorCapture = (roomId: string) => deps.rooms.get(roomId).doc.getMap(RoomKey.settings).get(SettingKey.allowAnnotatorCapture) === true;
  const app = new Hono();
  app.route('/', captureRoutes({ jobs: deps.jobs, roleOf, allowAnnotatorCapture, assertUnlocked: (roomId, role) => assertUnlocked(deps.rooms, roomId, role) }));
  app.route('/', runnerRoutes({ jobs: deps.jobs, roleOf }));
  return app;
}
