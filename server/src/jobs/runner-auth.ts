/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearer(authorization: string | undefined): string | undefined {
  return authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}
