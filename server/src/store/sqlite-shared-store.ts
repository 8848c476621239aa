import Database from 'better-sqlite3';
import type { SyncMode } from '../config';
import { JobQueue } from '../jobs/queue';
import { RunnerTokens } from '../jobs/runner-tokens';
import { openStore, type Store } from './index';
import { validated } from './shared-input';
import { DrillStore } from '../teaching/drill-store';
import { InvitationsStore } from './invitations-store';
import { BODY_PIECE_BYTES, DOCUMENT_METHODS, DRILL_METHODS, HISTORY_METHODS, INVITATION_METHODS, RUNNER_TOKEN_METHODS, TRACE_METHODS, type AsyncOf, type GzipPieces, type SharedStore } from './shared-store';
import { StoreUnavailableError } from './store-errors';

/**
 * SQLite failures that mean the file refused the write (disk full, I/O error, read-only, locked
 * past the busy timeout), not bad input: they become `StoreUnavailableError`, as PostgreSQL
 * being unreachable does.
 */
const UNAVAILABLE = /^SQLITE_(IOERR|FULL|READONLY|CANTOPEN|BUSY|LOCKED|CORRUPT|NOTADB)/;

function unavailable(err: unknown): boolean {
  if (err instanceof Database.SqliteError) return UNAVAILABLE.test(err.code);
  // better-sqlite3 throws a TypeError from every statement once its connection is closed.
  return err instanceof TypeError && /database connection is not open/.test(err.message);
}

/** The named methods of `target`, each run at once and answered as a promise; backend failures become `StoreUnavailableError`. */
function asyncOf<T extends object, K extends keyof T>(target: T, name: string, keys: readonly K[]): AsyncOf<T, K> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const method = target[key] as (...args: unknown[]) => unknown;
    out[key as string] = async (...args: unknown[]) => {
      try {
        return method.apply(target, args);
      } catch (err) {
        throw unavailable(err) ? new StoreUnavailableError(`${name}.${String(key)}`, err) : err;
      }
    };
  }
  return out as AsyncOf<T, K>;
}

/** A body SQLite returns whole, handed out in `BODY_PIECE_BYTES` pieces (views of it, no copy). */
function pieces(whole: Buffer | undefined): GzipPieces | undefined {
  if (!whole) return undefined;
  return {
    bytes: whole.length,
    pieces: (async function* () {
      for (let at = 0; at < whole.length; at += BODY_PIECE_BYTES) yield whole.subarray(at, at + BODY_PIECE_BYTES);
    })(),
  };
}

/**
 * The embedded store's dumps and traces behind the shared store's interfaces (each call answered
 * at once, on the next microtask): what the app reads them through in embedded mode.
 */
export function sqliteContent(store: Store): Pick<SharedStore, 'documents' | 'traces'> {
  return {
    documents: {
      ...asyncOf(store.documents, 'documents', DOCUMENT_METHODS),
      textGzipPieces: async (sha256) => pieces(store.documents.textGzip(sha256)),
      analysisGzipPieces: async (sha256) => pieces(store.documents.analysisGzip(sha256)),
    },
    traces: asyncOf(store.traces, 'traces', TRACE_METHODS),
  };
}

/**
 * The embedded store's replay history and drills behind the shared store's interfaces (each call
 * answered at once): what the teaching routes read and write through in embedded mode.
 */
export function sqliteTeaching(store: Store): Pick<SharedStore, 'history' | 'drills'> {
  return { history: asyncOf(store.updates.history, 'history', HISTORY_METHODS), drills: asyncOf(new DrillStore(store.db), 'drills', DRILL_METHODS) };
}

/**
 * Today's embedded SQLite classes behind the shared store's interface, unchanged (each call runs
 * synchronously on the event loop, as they always have; the promise is only the interface).
 * `closeStore` says whether `close()` closes the SQLite store too (true when this adapter opened it).
 */
export function sqliteSharedStore(store: Store, jobs: JobQueue, closeStore = false, now: () => number = Date.now): SharedStore {
  return validated({
    roomLog: asyncOf(store.updates, 'roomLog', ['load', 'appendRooms', 'compact']),
    rooms: asyncOf(store.rooms, 'rooms', ['count', 'create', 'get', 'lookupToken', 'tokenHash', 'replaceToken']),
    jobs: asyncOf(jobs, 'jobs', ['enqueue', 'get', 'listRoom', 'heldBy', 'lease', 'renew', 'setPhase', 'cancel', 'claimResult', 'complete', 'fail', 'sweep', 'setCarried']),
    ...sqliteContent(store),
    ...sqliteTeaching(store),
    invitations: asyncOf(new InvitationsStore(store.db), 'invitations', INVITATION_METHODS),
    runnerTokens: asyncOf(new RunnerTokens(store.db, now), 'runnerTokens', RUNNER_TOKEN_METHODS),
    close: async () => {
      if (closeStore) store.close();
    },
  });
}

/** Opens the embedded store in `dataDir` (as the server does) and serves it as a shared store; `close()` closes it. */
export function openSqliteSharedStore(dataDir: string, syncMode: SyncMode, now: () => number = Date.now): SharedStore {
  const store = openStore(dataDir, syncMode);
  return sqliteSharedStore(store, new JobQueue(store.db, now), true, now);
}
