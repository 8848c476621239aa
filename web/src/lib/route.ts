/** Where the location points: the lobby, or a room with the token taken from the link's fragment. */
export type Route = { readonly name: 'lobby' } | { readonly name: 'room'; readonly roomId: string; readonly token: string | null };

/**
 * Reads a route from a path and fragment, e.g. `/r/AbC123` and `#token=xyz`. The token travels in
 * the fragment so that it never reaches server logs or referrers.
 */
export function parseRoute(pathname: string, hash: string): Route {
  const m = /^\/r\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  if (!m || !m[1]) return { name: 'lobby' };
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token');
  return { name: 'room', roomId: m[1], token: token && token.length > 0 ? token : null };
}

/** The path and fragment of a room link. */
export function roomHref(roomId: string, token: string): string {
  return `/r/${encodeURIComponent(roomId)}#token=${encodeURIComponent(token)}`;
}
