import { describe, expect, it } from 'vitest';
import { ApiError, RoomApi } from './api';
import type { RoomPrefetch } from './prefetch';

const info = { id: 'r1', title: 'T', role: 'viewer', documents: [] };

function recorder(answer: (url: string) => Response) {
  const calls: string[] = [];
  const fetcher = (async (input: RequestInfo | URL) => {
    calls.push(String(input));
    return answer(String(input));
  }) as typeof fetch;
  return { calls, fetcher };
}

describe('RoomApi', () => {
  it('uses the prefetched room once, then asks the server', async () => {
    const { calls, fetcher } = recorder(() => Response.json({ ...info, title: 'fresh' }));
    const prefetch: RoomPrefetch = { roomId: 'r1', token: 't', info: Promise.resolve(Response.json(info)), text: Promise.resolve(null) };
    const api = new RoomApi('', fetcher, prefetch);
    expect((await api.room('r1', 't')).title).toBe('T');
    expect(calls).toEqual([]);
    expect((await api.room('r1', 't')).title).toBe('fresh');
    expect(calls).toEqual(['/api/rooms/r1']);
  });

  it('ignores a prefetch for another token or a failed one', async () => {
    const { calls, fetcher } = recorder(() => Response.json(info));
    const failed: RoomPrefetch = { roomId: 'r1', token: 't', info: Promise.resolve(new Response('no', { status: 500 })), text: Promise.resolve(null) };
    await new RoomApi('', fetcher, failed).room('r1', 't');
    await new RoomApi('', fetcher, failed).room('r1', 'other');
    expect(calls).toEqual(['/api/rooms/r1', '/api/rooms/r1']);
  });

  it('serves a prefetched text only for the document it belongs to', async () => {
    const { calls, fetcher } = recorder(() => new Response('from the server'));
    const prefetch: RoomPrefetch = { roomId: 'r1', token: 't', info: Promise.resolve(null), text: Promise.resolve({ docId: 'd1', text: 'early' }) };
    const api = new RoomApi('', fetcher, prefetch);
    expect(await api.text('r1', 't', 'd1')).toBe('early');
    expect(await api.text('r1', 't', 'd2')).toBe('from the server');
    expect(calls).toEqual(['/api/rooms/r1/documents/d2/text']);
  });

  it('tells the first document of the prefetched room only for its room and token', async () => {
    const prefetch: RoomPrefetch = { roomId: 'r1', token: 't', info: Promise.resolve(null), first: Promise.resolve('d1'), text: Promise.resolve(null) };
    const api = new RoomApi('', recorder(() => new Response()).fetcher, prefetch);
    expect(await api.firstDocument('r1', 't')).toBe('d1');
    expect(await api.firstDocument('r1', 'other')).toBeNull();
    expect(await api.firstDocument('r2', 't')).toBeNull();
    expect(await new RoomApi('').firstDocument('r1', 't')).toBeNull();
  });

  it("turns the server's error shape into an ApiError with its code", async () => {
    const { fetcher } = recorder(() => Response.json({ error: { code: 'forbidden', message: 'viewers cannot write' } }, { status: 403 }));
    const err = await new RoomApi('', fetcher).upload('r1', 't', 'x', 'y').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, code: 'forbidden', message: 'viewers cannot write' });
  });

  it('imports a folder as one multipart body, each part named by its path, with its progress told', async () => {
    let seen: { url: string; auth: string | null; parts: [string, string][] } | null = null;
    const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const form = await req.formData();
      const parts: [string, string][] = [];
      for (const [, v] of form.entries()) parts.push([(v as File).name, await (v as File).text()]);
      seen = { url: req.url, auth: req.headers.get('Authorization'), parts };
      return Response.json({ documents: [], groups: [], skipped: [{ path: 'dump/x.pb', reason: 'binary' }], added: 0, unchanged: 0 });
    }) as typeof fetch;
    const progress: number[] = [];
    const files = [
      { path: 'dump/module_0001.jit_f.before_optimizations.txt', file: new Blob(['HloModule a']) },
      { path: 'dump/x.pb', file: new Blob([new Uint8Array([1, 2])]) },
    ];
    const r = await new RoomApi('http://seam.test', fetcher).importFiles('r 1', 't', files, { onProgress: (p) => progress.push(p.loaded) });
    expect(r.skipped).toEqual([{ path: 'dump/x.pb', reason: 'binary' }]);
    expect(seen).toEqual({ url: 'http://seam.test/api/rooms/r%201/imports', auth: 'Bearer t', parts: [['dump/module_0001.jit_f.before_optimizations.txt', 'HloModule a'], ['dump/x.pb', '\u0001\u0002']] });
    expect(progress.length).toBe(1);
  });

  it('sends an archive whole with its type, and reads a refused import as an ApiError', async () => {
    const types: (string | null)[] = [];
    const fetcher = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      types.push(new Headers(init?.headers).get('Content-Type'));
      return Response.json({ error: { code: 'too_large', message: 'the archive inflates past 512 MB' } }, { status: 413 });
    }) as typeof fetch;
    const progress: [number, number][] = [];
    const err = await new RoomApi('', fetcher).importArchive('r1', 't', new Blob(['PK']), 'application/zip', { onProgress: (p) => progress.push([p.loaded, p.total]) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 413, code: 'too_large', message: 'the archive inflates past 512 MB' });
    expect(types).toEqual(['application/zip']);
    expect(progress).toEqual([[2, 2]]);
  });

  it('refuses an import answer of another shape instead of reading half of it', async () => {
    const fetcher = (async () => Response.json({ documents: [{ id: 'd1' }], groups: [], skipped: [], added: 1, unchanged: 0 })) as typeof fetch;
    const err = await new RoomApi('', fetcher).importFiles('r1', 't', []).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad-response' });
  });
});
