import type { JobQueue } from '../jobs/queue';
import type { RoomsStore } from './rooms-store';
import type { UpdatesStore } from './updates-store';

/** The methods of `T` named `K`, each returning a promise of what it returned. */
export type AsyncOf<T, K extends keyof T> = {
  readonly [P in K]: T[P] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};

/**
 * The room update log: load a room (snapshot, then the log after it, and the id of its last
 * update), append the batches of several rooms in one transaction (all or nothing; per batch the
 * id of its last update), compact a room's log through an id into a snapshot. Ids increase within
 * a room in commit order; they mean nothing across rooms or backends.
 */
export type RoomLog = AsyncOf<UpdatesStore, 'load' | 'appendRooms' | 'compact'>;

/** Rooms and their role token hashes. */
export type RoomDirectory = AsyncOf<RoomsStore, 'count' | 'create' | 'get' | 'lookupToken' | 'tokenHash' | 'replaceToken'>;

/**
 * The capture job queue with leases: a lease is given to exactly one runner, every later
 * transition names the attempt it applies to, and an expired lease is swept back into the queue.
 */
export type JobLeases = AsyncOf<
  JobQueue,
  'enqueue' | 'get' | 'listRoom' | 'heldBy' | 'lease' | 'renew' | 'setPhase' | 'cancel' | 'claimResult' | 'complete' | 'fail' | 'sweep'
>;

/**
 * What instances of Seam must share to serve any room from any instance: the room log, the
 * rooms, the job queue. One interface, two implementations that pass one contract suite: the
 * embedded SQLite store (`sqlite-shared-store.ts`, for one instance) and PostgreSQL
 * (`postgres/`, for many). Every method validates its input first and throws `StoreInputError`
 * without writing; a backend that cannot be reached or refuses the write makes it throw
 * `StoreUnavailableError`, and nothing of that call counts as written.
 */
export interface SharedStore {
  readonly roomLog: RoomLog;
  readonly rooms: RoomDirectory;
  readonly jobs: JobLeases;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
