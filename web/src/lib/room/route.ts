/**
 * Where the location points: the lobby (with the invitation a lobby link carries, if any), or a
 * room with the token taken from the link's fragment.
 */
export type Route =
  | { readonly name: 'lobby'; readonly invite: string | null }
  | { readonly name: 'room'; readonly roomId: string; readonly token: string | null };

/**
 * Reads a route from a path and fragment, e.g. `/r/AbC123` and `#token=xyz`, or `/` and
 * `#invite=inv_…`. Secrets travel in the fragment so that they never reach server logs or referrers.
 */
export function parseRoute(pathname: string, hash: string): Route {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const nonEmpty = (key: string) => params.get(key) || null;
  const m = /^\/r\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  if (!m || !m[1]) return { name: 'lobby', invite: nonEmpty('invite') };
  return { name: 'room', roomId: m[1], token: nonEmpty('token') };
}

/** The path and fragment of a room link. */
export function roomHref(roomId: string, token: string): string {
  return `/r/${encodeURIComponent(roomId)}#token=${encodeURIComponent(token)}`;
}
