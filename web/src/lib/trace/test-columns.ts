import { decodeWindowColumns, encodeWindowColumns, type TraceEvent, type WindowColumns } from '@seam/shared/trace';

/** Events (each track's in start order) as the view holds them: one window over [fromUs, toUs], through the wire form the server answers in. For tests. */
export function columnsOf(events: readonly TraceEvent[], fromUs = 0, toUs = 1e9): WindowColumns {
  const byTrack = new Map<number, TraceEvent[]>();
  for (const e of events) byTrack.set(e.track, [...(byTrack.get(e.track) ?? []), e]);
  const windows = [...byTrack].map(([track, list]) => ({ track, fromUs, toUs, total: list.length, downsampled: false, events: list }));
  return decodeWindowColumns(encodeWindowColumns(fromUs, toUs, windows));
}
