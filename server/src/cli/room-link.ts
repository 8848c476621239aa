/** A room link as people share it, read for the API: where the server is, which room, and the token. */
export interface RoomLink {
  /** `https://seam.example.org` (any path the server is mounted under kept). */
  readonly origin: string;
  readonly roomId: string;
  /** The role token from the link's fragment; never printed. */
  readonly token: string;
  /** The link without its token, safe to print: `https://seam.example.org/r/AbC123`. */
  readonly shown: string;
}

/** Thrown for a link that is not a room link with a token; the message never holds the token. */
export class RoomLinkError extends Error {}

/**
 * Reads a room link, `https://HOST/r/ROOM#token=TOKEN` (the web app's form; `?token=` is read
 * too). Throws `RoomLinkError` for anything else.
 */
export function parseRoomLink(link: string): RoomLink {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new RoomLinkError('ROOM_LINK is not a URL; copy the room link from "Share" (https://…/r/ROOM#token=…)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RoomLinkError('ROOM_LINK must be an http or https link');
  const m = /^(.*)\/r\/([A-Za-z0-9_-]+)\/?$/.exec(url.pathname);
  const shown = `${url.origin}${url.pathname}`;
  if (!m) throw new RoomLinkError(`${shown} is not a room link (…/r/ROOM#token=…)`);
  const token = new URLSearchParams(url.hash.replace(/^#/, '')).get('token') ?? url.searchParams.get('token');
  if (!token) throw new RoomLinkError(`${shown} carries no token (#token=…); copy the annotator or owner link from "Share"`);
  return { origin: `${url.origin}${m[1]}`, roomId: m[2]!, token, shown };
}
