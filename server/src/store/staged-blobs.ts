import type { Limits } from '../config';
import { ApiError, ErrorCode } from '../errors';

/** A sha256 in lowercase hex: the only names staged blobs have. */
export const STAGED_SHA256 = /^[0-9a-f]{64}$/;
/** Room ids as the server mints them; anything else is refused before it reaches a store. */
export const STAGED_ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A staged file: its content hash and size. */
export interface StagedBlob {
  readonly sha256: string;
  readonly bytes: number;
}

/** How much a `put` may take: bytes for this blob, and the message that names the limit passed. */
export interface PutBound {
  readonly maxBytes: number;
  readonly tooLarge: string;
}

/** What staging is bounded by: bytes per room, and seconds a blob no import used is kept. */
export type StagingLimits = Pick<Limits, 'stagedBytes' | 'stagedSeconds'>;

/** Throws 400 `bad_request` unless `roomId` is a room id and `sha256` (when given) a lowercase hex sha256. */
export function checkStagedName(roomId: string, sha256?: string): void {
  if (!STAGED_ROOM_ID.test(roomId)) throw new ApiError(ErrorCode.badRequest, 'not a room id');
  if (sha256 !== undefined && !STAGED_SHA256.test(sha256)) throw new ApiError(ErrorCode.badRequest, 'a blob is named by its sha256 in lowercase hex');
}

/** The refusal of a write past the room's staged-bytes quota. */
export const overStagingQuota = (limits: StagingLimits) =>
  new ApiError(ErrorCode.tooLarge, `this room may stage at most ${limits.stagedBytes} bytes at once (SEAM_STAGED_BYTES)`);

/** The refusal of a body whose sha256 is not the one it was staged under. */
export const wrongStagedSha = (sha256: string, expected: string) =>
  new ApiError(ErrorCode.badRequest, `the body's sha256 is ${sha256}, not ${expected}: it was changed or cut short on the way`);

/**
 * Files staged for an import, by content, per room: `PUT /api/rooms/:id/blobs/:sha256` (and each
 * member of an uploaded archive) streams a file in, hashed as it is written, so that an import
 * can then commit many files at once, and a push that broke off resumes with the files not staged
 * yet. At most `stagedBytes` per room; a blob no import used is gone `stagedSeconds` after it was
 * last staged. Not a store of record: an import copies what it keeps into the documents' blobs.
 * Two implementations: files under the data directory (embedded mode, `BlobStaging`) and
 * PostgreSQL (scaled mode, shared by every instance, `postgresStaging`).
 */
export interface StagedBlobs {
  /** The staged blob's size, or undefined when it is not staged (or has expired). */
  size(roomId: string, sha256: string): Promise<number | undefined>;
  /** A staged blob's bytes, in pieces as they are read. */
  read(roomId: string, sha256: string): AsyncIterable<Uint8Array>;
  /**
   * Stages `body`, hashed as it is written and named by its sha256 (the same content staged twice
   * is one blob, its expiry renewed). `expected`, when given, must be that sha256 (else 400 and
   * nothing is kept). Past `bound.maxBytes`, or past the room's `stagedBytes`, the write stops at
   * once with 413 `too_large`, keeping nothing.
   */
  put(roomId: string, body: AsyncIterable<Uint8Array>, bound: PutBound, expected?: string): Promise<StagedBlob>;
  /** Removes staged blobs (after an import used them, or when an upload failed). */
  remove(roomId: string, sha256s: Iterable<string>): Promise<void>;
}
