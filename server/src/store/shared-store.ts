import type { JobQueue } from '../jobs/queue';
import type { RunnerTokens } from '../jobs/runner-tokens';
import type { DrillStore } from '../teaching/drill-store';
import type { HistoryStore } from '../teaching/replay/history-store';
import type { TraceStore } from '../trace/store';
import type { DocumentsStore } from './documents-store';
import type { InvitationsStore } from './invitations-store';
import type { RoomsStore } from './rooms-store';
import type { UpdatesStore } from './updates-store';

/** The methods of `T` named `K`, each returning a promise of what it returned. */
export type AsyncOf<T, K extends keyof T> = {
  readonly [P in K]: T[P] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};

/**
 * The room update log: load a room (snapshot, then the log after it, and the id of its last
 * update), append the batches of several rooms in one transaction (all or nothing; per batch the
 * id of its last update; each update also goes into the room's replay history, in the same
 * transaction), compact a room's log through an id into a snapshot. Ids increase within
 * a room in commit order; they mean nothing across rooms or backends.
 */
export type RoomLog = AsyncOf<UpdatesStore, 'load' | 'appendRooms' | 'compact'>;

/** Rooms and their role token hashes. */
export type RoomDirectory = AsyncOf<RoomsStore, 'count' | 'create' | 'get' | 'lookupToken' | 'tokenHash' | 'replaceToken'>;

/**
 * The capture job queue with leases: a lease is given to exactly one runner, every later
 * transition names the attempt it applies to, and an expired lease is swept back into the queue.
 * `setCarried` records what carrying a re-run's annotations over did.
 */
export type JobLeases = AsyncOf<
  JobQueue,
  'enqueue' | 'get' | 'listRoom' | 'heldBy' | 'lease' | 'renew' | 'setPhase' | 'cancel' | 'claimResult' | 'complete' | 'fail' | 'sweep' | 'setCarried'
>;

/** The methods of the embedded `DocumentsStore` the shared store serves. */
export const DOCUMENT_METHODS = [
  'usage', 'hasBlob', 'add', 'putBlob', 'addAll', 'setPath', 'remove', 'hasFile', 'roomHasBlob', 'moduleRefs', 'list', 'get',
  'textGzip', 'analysisGzip', 'analysisPartGzip', 'putAnalysisParts',
] as const satisfies readonly (keyof DocumentsStore)[];

/**
 * Dumps: blobs by sha256 (gzip of the text and of the analysis, stored once across rooms), their
 * analysis parts, and the rooms' documents that point at them. Bodies are stored and served gzipped.
 */
export type DocumentBlobs = AsyncOf<DocumentsStore, (typeof DOCUMENT_METHODS)[number]> & {
  /**
   * A blob's gzipped text in pieces of at most `BODY_PIECE_BYTES`, read as they are consumed (in
   * PostgreSQL, a few chunk rows at a time), with its length; undefined when it is not stored.
   * For serving a large body (a trace of gigabytes) without holding it whole.
   */
  readonly textGzipPieces: (sha256: string) => Promise<GzipPieces | undefined>;
  /** The blob's gzipped analysis in pieces, as `textGzipPieces` reads its text (for serving the whole analysis). */
  readonly analysisGzipPieces: (sha256: string) => Promise<GzipPieces | undefined>;
};

/** A stored gzip body read in pieces as they are consumed, with its length in bytes. */
export interface GzipPieces {
  readonly bytes: number;
  readonly pieces: AsyncIterable<Uint8Array>;
}

/** Largest piece `textGzipPieces` and `analysisGzipPieces` yield: 4 MiB, the size of PostgreSQL's body chunks. */
export const BODY_PIECE_BYTES = 4 * 1024 * 1024;

/** The methods of the embedded `TraceStore` the shared store serves. */
export const TRACE_METHODS = ['has', 'put', 'overview', 'putOverview', 'part', 'blocks'] as const satisfies readonly (keyof TraceStore)[];

/** Reduced traces by sha256: the reduction's parts, the overview, and each track's events in blocks read by time window. */
export type TraceBlocks = AsyncOf<TraceStore, (typeof TRACE_METHODS)[number]>;

/**
 * The methods of the embedded `HistoryStore` the shared store serves. Updates are not among them:
 * `RoomLog.appendRooms` records them in the transaction that appends them to the log.
 */
export const HISTORY_METHODS = ['recordPresenter', 'trim', 'start', 'presenterSamples', 'page'] as const satisfies readonly (keyof HistoryStore)[];

/** Each room's timed history for replay: presenter samples, bounds, where it starts, pages of entries. */
export type ReplayHistory = AsyncOf<HistoryStore, (typeof HISTORY_METHODS)[number]>;

/** The methods of the embedded `InvitationsStore` the shared store serves. */
export const INVITATION_METHODS = ['insert', 'list', 'revoke', 'take', 'status'] as const satisfies readonly (keyof InvitationsStore)[];

/** Invitations to create rooms, by the hash of their secret: a use is taken atomically, never twice. */
export type Invitations = AsyncOf<InvitationsStore, (typeof INVITATION_METHODS)[number]>;

/** The methods of the embedded `DrillStore` the shared store serves. */
export const DRILL_METHODS = ['create', 'get', 'countInRoom', 'reveal', 'people', 'hasPerson', 'answer', 'answers', 'answersOf'] as const satisfies readonly (keyof DrillStore)[];

/** Drills with their expected answers, and each person's answers. */
export type Drills = AsyncOf<DrillStore, (typeof DRILL_METHODS)[number]>;

/** The methods of the embedded `RunnerTokens` the shared store serves. */
export const RUNNER_TOKEN_METHODS = ['create', 'rotate', 'list', 'revoke', 'verify', 'isLive'] as const satisfies readonly (keyof RunnerTokens)[];

/** Runner tokens by the hash of their secret, each bound to one runner name. */
export type RunnerTokenStore = AsyncOf<RunnerTokens, (typeof RUNNER_TOKEN_METHODS)[number]>;

/**
 * What instances of Seam must share to serve any room from any instance: the room log (with the
 * replay history it records), the rooms, the job queue, the dumps, the traces, invitations,
 * drills and runner tokens. One interface, two implementations that pass one contract suite: the
 * embedded SQLite store (`sqlite-shared-store.ts`, for one instance) and PostgreSQL
 * (`postgres/`, for many). Every method validates its input first and throws `StoreInputError`
 * without writing; a backend that cannot be reached or refuses the write makes it throw
 * `StoreUnavailableError`, and nothing of that call counts as written.
 */
export interface SharedStore {
  readonly roomLog: RoomLog;
  readonly rooms: RoomDirectory;
  readonly jobs: JobLeases;
  readonly documents: DocumentBlobs;
  readonly traces: TraceBlocks;
  readonly history: ReplayHistory;
  readonly invitations: Invitations;
  readonly drills: Drills;
  readonly runnerTokens: RunnerTokenStore;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
