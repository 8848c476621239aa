/** What `index.html` starts fetching for a room link before the app bundle has loaded. */
export interface RoomPrefetch {
  readonly roomId: string;
  readonly token: string;
  /** The `GET /api/rooms/:id` response, or null when the request failed. */
  readonly info: Promise<Response | null>;
  /** The id of the room's oldest document, the one opened first, as soon as the room answered; null when none. */
  readonly first?: Promise<string | null>;
  /** The text of the room's oldest document, or null (always for a trace). */
  readonly text: Promise<{ docId: string; text: string } | null>;
  /** When the room's oldest document is a trace: its summary (parsed JSON) and overview (bytes), each null when its request failed. */
  readonly trace?: Promise<{ readonly docId: string; readonly summary: Promise<unknown>; readonly overview: Promise<ArrayBuffer | null> } | null>;
}

/** Reads the prefetch `index.html` left on the window, if any. */
export function takePrefetch(w: Window): RoomPrefetch | null {
  const p = (w as Window & { __seamPrefetch?: RoomPrefetch }).__seamPrefetch;
  return p && typeof p.roomId === 'string' && typeof p.token === 'string' ? p : null;
}
