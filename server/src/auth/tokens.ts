import { createHash, randomBytes } from 'node:crypto';

/** A new capability token: 32 random bytes, base64url. Only its hash is ever stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 of a token; tokens are looked up and compared by this hash only. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new unguessable id (room, document, annotation): 16 random bytes, base64url. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}

/** The token of a request: `Authorization: Bearer <token>` first, else `?token=`. */
export function tokenFrom(authorization: string | undefined, query: string | null | undefined): string | undefined {
  const m = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (m) return m[1];
  return query || undefined;
}
