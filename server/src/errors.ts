import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/** Stable machine-readable error codes of the HTTP API. */
export const ErrorCode = {
  badRequest: 'bad_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  tooLarge: 'too_large',
  rateLimited: 'rate_limited',
  conflict: 'conflict',
  internal: 'internal',
  /** A non-owner wrote into a room its owner has locked (every REST write path says so alike). */
  roomLocked: 'room_locked',
  /** A runner token acted for a runner name or a job that is not its own. */
  wrongRunner: 'wrong_runner',
  /** Creating a room needs an invitation or the operator token, and the request carried neither. */
  invitationRequired: 'invitation_required',
  /** The credential is neither a known invitation nor the operator token. */
  invitationInvalid: 'invitation_invalid',
  invitationRevoked: 'invitation_revoked',
  invitationExpired: 'invitation_expired',
  invitationUsedUp: 'invitation_used_up',
  /** A room, document or byte quota is used up (rooms on the server, documents or dump bytes in a room). */
  quotaExceeded: 'quota_exceeded',
  /** The analyzer's queue is full; try again shortly. */
  busy: 'busy',
  /** An import's archive or multipart body cannot be read (truncated, corrupt, not the format it says). */
  badArchive: 'bad_archive',
  /** An imported file's name leaves the folder (`..`, absolute, drive letter, NUL) or is a link or device, not a file. */
  unsafePath: 'unsafe_path',
  /** An import names more files than `SEAM_IMPORT_FILES`. */
  tooManyFiles: 'too_many_files',
  /** An import's manifest names a blob that is neither staged nor in the room. */
  missingBlob: 'missing_blob',
  /** The shared store (PostgreSQL, scaled mode) could not be reached: nothing of the request was stored. */
  storeUnavailable: 'store_unavailable',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  too_large: 413,
  rate_limited: 429,
  conflict: 409,
  internal: 500,
  room_locked: 403,
  wrong_runner: 403,
  invitation_required: 401,
  invitation_invalid: 401,
  invitation_revoked: 403,
  invitation_expired: 403,
  invitation_used_up: 403,
  quota_exceeded: 409,
  busy: 503,
  bad_archive: 400,
  unsafe_path: 400,
  too_many_files: 413,
  missing_blob: 409,
  store_unavailable: 503,
};

/** The one error type routes throw; `onError` turns it into `{error:{code,message}}` with its status. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): ContentfulStatusCode {
    return STATUS[this.code];
  }
}

export const badRequest = (m: string) => new ApiError(ErrorCode.badRequest, m);
export const unauthorized = () => new ApiError(ErrorCode.unauthorized, 'a valid room token is required');
export const forbidden = (m: string) => new ApiError(ErrorCode.forbidden, m);
export const notFound = (m: string) => new ApiError(ErrorCode.notFound, m);
export const tooLarge = (m: string) => new ApiError(ErrorCode.tooLarge, m);
export const roomLocked = () => new ApiError(ErrorCode.roomLocked, 'the room is locked: only its owner may write until it is unlocked');

/** Every problem zod found, as `path: message` joined by `; `; a problem with the whole value says `body`. */
export function issuesMessage(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}
