import { ROLES, type Role } from '@seam/shared/model';
import type { RoomRow } from './rooms-store';
import { StoreInputError } from './store-errors';
import type { SharedStore } from './shared-store';
import type { RoomBatch } from './updates-store';

/** Longest room id the shared store accepts (today's ids are 16 characters). */
export const MAX_ROOM_ID = 128;

/** Throws `StoreInputError` unless `id` is a non-empty string of at most `MAX_ROOM_ID` characters without NUL (which PostgreSQL's text cannot hold). */
export function checkRoomId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ROOM_ID || id.includes('\0')) {
    throw new StoreInputError(`room id must be 1–${MAX_ROOM_ID} characters without NUL, got ${JSON.stringify(String(id)).slice(0, 80)}`);
  }
}

/** Throws `StoreInputError` unless `text` is a string without NUL. */
export function checkText(what: string, text: unknown): asserts text is string {
  if (typeof text !== 'string' || text.includes('\0')) throw new StoreInputError(`${what} must be text without NUL`);
}

/** Throws `StoreInputError` unless `n` is a safe integer of at least `min`. */
export function checkInteger(what: string, n: unknown, min: number): asserts n is number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) throw new StoreInputError(`${what} must be an integer ≥ ${min}, got ${String(n)}`);
}

/** Throws `StoreInputError` unless `bytes` is a non-empty `Uint8Array` (an empty Yjs update is not an update). */
export function checkBytes(what: string, bytes: unknown): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new StoreInputError(`${what} must be non-empty bytes`);
}

/** Checks a group commit: an array of batches, each a valid room id and a non-empty array of non-empty updates. */
export function checkBatches(batches: unknown): asserts batches is readonly RoomBatch[] {
  if (!Array.isArray(batches)) throw new StoreInputError('batches must be an array');
  for (const [i, b] of batches.entries()) {
    if (typeof b !== 'object' || b === null) throw new StoreInputError(`batch ${i} is not an object`);
    const { roomId, updates } = b as { roomId?: unknown; updates?: unknown };
    checkRoomId(roomId);
    if (!Array.isArray(updates) || updates.length === 0) throw new StoreInputError(`batch ${i} (room ${roomId}) has no updates`);
    for (const [j, u] of updates.entries()) checkBytes(`update ${j} of batch ${i}`, u);
  }
}

/** Checks a new room and its token hashes: one SHA-256 (32 bytes) per role, nothing else. */
export function checkNewRoom(room: unknown, hashes: unknown): asserts room is RoomRow {
  if (typeof room !== 'object' || room === null) throw new StoreInputError('room must be an object');
  const { id, title, createdAt } = room as Partial<RoomRow>;
  checkRoomId(id);
  checkText('room title', title);
  checkInteger('room createdAt', createdAt, 0);
  if (typeof hashes !== 'object' || hashes === null) throw new StoreInputError('token hashes must be an object');
  const roles = Object.keys(hashes).sort();
  if (roles.join() !== [...ROLES].sort().join()) throw new StoreInputError(`token hashes must name exactly the roles ${ROLES.join(', ')}`);
  for (const role of ROLES) checkHash(`token hash of ${role}`, (hashes as Record<Role, unknown>)[role]);
}

/** Throws `StoreInputError` unless `hash` is 32 bytes. */
export function checkHash(what: string, hash: unknown): asserts hash is Buffer {
  if (!(hash instanceof Uint8Array) || hash.length !== 32) throw new StoreInputError(`${what} must be 32 bytes (a SHA-256)`);
}

/** Throws `StoreInputError` unless `role` is one of the roles. */
export function checkRole(role: unknown): asserts role is Role {
  if (!ROLES.includes(role as Role)) throw new StoreInputError(`role must be one of ${ROLES.join(', ')}`);
}

function checkObject(what: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreInputError(`${what} must be an object`);
}

/**
 * Wraps a shared store so that every call checks its input first (throwing `StoreInputError`
 * before the backend sees anything): the one place both backends' validation lives, so that they
 * refuse the same things.
 */
export function validated(store: SharedStore): SharedStore {
  const { roomLog, rooms, jobs } = store;
  return {
    roomLog: {
      load: async (roomId) => {
        checkRoomId(roomId);
        return roomLog.load(roomId);
      },
      appendRooms: async (batches) => {
        checkBatches(batches);
        return roomLog.appendRooms(batches);
      },
      compact: async (roomId, snapshot, throughId) => {
        checkRoomId(roomId);
        checkBytes('snapshot', snapshot);
        checkInteger('throughId', throughId, 0);
        return roomLog.compact(roomId, snapshot, throughId);
      },
    },
    rooms: {
      count: () => rooms.count(),
      create: async (room, hashes) => {
        checkNewRoom(room, hashes);
        return rooms.create(room, hashes);
      },
      get: async (id) => {
        checkRoomId(id);
        return rooms.get(id);
      },
      lookupToken: async (hash) => {
        checkHash('token hash', hash);
        return rooms.lookupToken(hash);
      },
      tokenHash: async (roomId, role) => {
        checkRoomId(roomId);
        checkRole(role);
        return rooms.tokenHash(roomId, role);
      },
      replaceToken: async (roomId, role, hash) => {
        checkRoomId(roomId);
        checkRole(role);
        checkHash('token hash', hash);
        return rooms.replaceToken(roomId, role, hash);
      },
    },
    jobs: {
      enqueue: async (roomId, request, requestedBy, maxAttempts) => {
        checkRoomId(roomId);
        checkObject('capture request', request);
        checkText('requestedBy', requestedBy);
        checkInteger('maxAttempts', maxAttempts, 1);
        return jobs.enqueue(roomId, request, requestedBy, maxAttempts);
      },
      get: async (id) => {
        checkText('job id', id);
        return jobs.get(id);
      },
      listRoom: async (roomId) => {
        checkRoomId(roomId);
        return jobs.listRoom(roomId);
      },
      heldBy: async (runnerId) => {
        checkText('runner id', runnerId);
        return jobs.heldBy(runnerId);
      },
      lease: async (runnerId, runnerName, leaseMs) => {
        checkText('runner id', runnerId);
        checkText('runner name', runnerName);
        checkInteger('leaseMs', leaseMs, 1);
        return jobs.lease(runnerId, runnerName, leaseMs);
      },
      renew: async (runnerId, jobId, attempt, leaseMs) => {
        checkText('runner id', runnerId);
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        checkInteger('leaseMs', leaseMs, 1);
        return jobs.renew(runnerId, jobId, attempt, leaseMs);
      },
      setPhase: async (runnerId, jobId, attempt, phase) => {
        checkText('runner id', runnerId);
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        checkText('phase', phase);
        return jobs.setPhase(runnerId, jobId, attempt, phase);
      },
      cancel: async (jobId) => {
        checkText('job id', jobId);
        return jobs.cancel(jobId);
      },
      claimResult: async (jobId, attempt) => {
        checkText('job id', jobId);
        checkInteger('attempt', attempt, 1);
        return jobs.claimResult(jobId, attempt);
      },
      complete: async (jobId, documents, provenance, analyses) => {
        checkText('job id', jobId);
        if (!Array.isArray(documents)) throw new StoreInputError('documents must be an array of ids');
        for (const d of documents) checkText('document id', d);
        checkObject('provenance', provenance);
        if (analyses !== null) checkObject('analyses', analyses);
        return jobs.complete(jobId, documents, provenance, analyses);
      },
      fail: async (jobId, error, provenance) => {
        checkText('job id', jobId);
        checkObject('capture error', error);
        if (provenance !== undefined) checkObject('provenance', provenance);
        return jobs.fail(jobId, error, provenance);
      },
      sweep: async (retryWaitMs) => {
        checkInteger('retryWaitMs', retryWaitMs, 0);
        return jobs.sweep(retryWaitMs);
      },
    },
    close: () => store.close(),
  };
}
