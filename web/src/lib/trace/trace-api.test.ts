import { describe, expect, it } from 'vitest';
import { encodeWindowColumns, TraceFormatError, type TraceSummary } from '@seam/shared/trace';
import type { RoomPrefetch } from '../room/prefetch';
import { TraceApi } from './trace-api';

const summary = { format: 'xplane', events: 1, tracks: [], startUs: 0, endUs: 10, opTotalUs: 0, steps: [], ignored: 0, unpaired: 0 } as TraceSummary;
const early = encodeWindowColumns(0, 10, [{ track: 0, fromUs: 0, toUs: 10, total: 1, downsampled: false, events: [{ track: 0, startUs: 1, durUs: 2, name: 'early' }] }]);
const late = encodeWindowColumns(0, 10, [{ track: 0, fromUs: 0, toUs: 10, total: 1, downsampled: false, events: [{ track: 0, startUs: 1, durUs: 2, name: 'network' }] }]);

/** A fetcher answering the trace routes, recording what it was asked. */
function server() {
  const calls: string[] = [];
  const fetcher = (async (input: RequestInfo | URL) => {
    const url = String(input);
    calls.push(url.replace(/^.*\/trace\//, ''));
    if (url.endsWith('/summary')) return Response.json({ ...summary, events: 2 });
    if (url.endsWith('/overview')) return new Response(new Uint8Array(late));
    if (url.includes('/events?')) return new Response(new Uint8Array([1, 2, 3]));
    return new Response('{"error":{"code":"not_found","message":"nope"}}', { status: 404 });
  }) as typeof fetch;
  return { calls, fetcher };
}

const prefetch = (over: Partial<RoomPrefetch> = {}, docId = 'd1', failed = false): RoomPrefetch => ({
  roomId: 'r1', token: 't', info: Promise.resolve(null), text: Promise.resolve(null),
  trace: Promise.resolve({ docId, summary: Promise.resolve(failed ? null : summary), overview: Promise.resolve(failed ? null : early.slice().buffer) }),
  ...over,
});
const names = (w: Awaited<ReturnType<TraceApi['overview']>>) => w.strings;

describe('TraceApi', () => {
  it('takes the summary and overview index.html started fetching, for its own room, token and document only', async () => {
    const s = server();
    const api = new TraceApi('', 'r1', 'd1', 't', s.fetcher, prefetch());
    expect((await api.summary()).events).toBe(1);
    expect(names(await api.overview())).toEqual(['early']);
    expect(s.calls).toEqual([]);
    for (const other of [new TraceApi('', 'r1', 'd2', 't', s.fetcher, prefetch()), new TraceApi('', 'r1', 'd1', 'x', s.fetcher, prefetch()), new TraceApi('', 'r2', 'd1', 't', s.fetcher, prefetch())]) {
      expect((await other.summary()).events).toBe(2);
      expect(names(await other.overview())).toEqual(['network']);
    }
    expect(s.calls).toHaveLength(6);
  });

  it('asks the server when the early requests failed or there were none', async () => {
    const s = server();
    expect((await new TraceApi('', 'r1', 'd1', 't', s.fetcher, prefetch({}, 'd1', true)).summary()).events).toBe(2);
    expect(names(await new TraceApi('', 'r1', 'd1', 't', s.fetcher, prefetch({ trace: Promise.resolve(null) })).overview())).toEqual(['network']);
    expect(names(await new TraceApi('', 'r1', 'd1', 't', s.fetcher).overview())).toEqual(['network']);
    expect(s.calls).toEqual(['summary', 'overview', 'overview']);
  });

  it('says by name when a window is not one, and passes the server’s error on', async () => {
    const s = server();
    const api = new TraceApi('', 'r1', 'd1', 't', s.fetcher);
    await expect(api.events(0, 10, 100)).rejects.toThrow(TraceFormatError);
    expect(s.calls).toEqual(['events?from=0&to=10&limit=100&format=columns']);
    await expect(api.ops()).rejects.toThrow(/nope/);
  });
});
