/**
 * The backend (PostgreSQL, or the SQLite file) could not be reached or refused a write: nothing of
 * the call that threw it is stored, so nothing of it may be acknowledged. `cause` is the driver's
 * error.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(operation: string, cause: unknown) {
    super(`store unavailable during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A call to the shared store with input it cannot store (checked before anything is written). */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
}
