import { readHistoryLine, type HistoryLine } from '@seam/shared/teaching';
import { failure } from '../../room/api';

/** A whole room history as the server pages it: where it starts, then every entry in order. */
export interface FetchedHistory {
  readonly start: Extract<HistoryLine, { type: 'start' }>;
  readonly entries: readonly Extract<HistoryLine, { type: 'update' | 'presenter' }>[];
}

/** Thrown for a page that holds a line that is not history, or no start. */
export class MalformedHistory extends Error {
  override name = 'MalformedHistory';
}

/** Most pages one replay reads (2,000 entries each): past it the history is cut, which the view says. */
export const MAX_REPLAY_PAGES = 500;

/** `GET /api/rooms/:id/history`, every page of it, with the room token in the Authorization header. */
export async function fetchHistory(roomId: string, token: string, fetcher: typeof fetch = (...a) => fetch(...a)): Promise<FetchedHistory & { cut: boolean }> {
  let start: FetchedHistory['start'] | undefined;
  const entries: Extract<HistoryLine, { type: 'update' | 'presenter' }>[] = [];
  let after = '';
  for (let page = 0; page < MAX_REPLAY_PAGES; page++) {
    const res = await fetcher(`/api/rooms/${encodeURIComponent(roomId)}/history${after ? `?after=${encodeURIComponent(after)}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw await failure(res);
    let next = '';
    for (const raw of (await res.text()).split('\n')) {
      if (!raw) continue;
      const line = readHistoryLine(raw);
      if (!line) throw new MalformedHistory('the history holds a line that is not an entry');
      if (line.type === 'start') start = line;
      else if (line.type === 'more') next = line.next;
      else entries.push(line);
    }
    if (!start) throw new MalformedHistory('the history has no start');
    if (!next) return { start, entries, cut: false };
    after = next;
  }
  if (!start) throw new MalformedHistory('the history has no start');
  return { start, entries, cut: true };
}
