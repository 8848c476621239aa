import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyze, writeAnalysisKeys, writeAnalysisViews } from '@seam/shared/ir';
import { valueColumns } from '../editor/ir/value-table';
import { fetchViews, fullAnalysis, viewOf } from './stored-analysis';

import mlpHlo from '../../../../test/fixtures/ir/mlp/hlo-opt.txt?raw';

const analysis = JSON.parse(JSON.stringify(analyze(mlpHlo, 'hlo-opt'))) as ReturnType<typeof analyze>;
/** Bodies by path and `part`, as the room server would answer them; the bearer token each request carried. */
const BODIES: Record<string, { status: number; body: unknown }> = {
  '/ok?part=views': { status: 200, body: writeAnalysisViews(analysis) },
  '/ok?part=keys': { status: 200, body: writeAnalysisKeys(analysis) },
  '/old?part=views': { status: 200, body: { ...writeAnalysisViews(analysis), version: 0 } },
  '/nokeys?part=views': { status: 200, body: writeAnalysisViews(analysis) },
  '/nokeys?part=keys': { status: 200, body: { version: 1 } },
  '/broken?part=views': { status: 500, body: { error: { code: 'internal', message: 'boom' } } },
};
const tokens: string[] = [];
const base = 'https://seam.test/api/rooms/r/documents';

// The worker's `fetch`, answering as the room server would (its routes are tested in server/).
beforeAll(() => {
  vi.stubGlobal('fetch', async (input: string, init?: RequestInit) => {
    tokens.push(new Headers(init?.headers).get('authorization') ?? '');
    const hit = BODIES[input.slice(base.length)];
    return Response.json(hit?.body ?? { error: { code: 'not_found', message: 'no analysis' } }, { status: hit?.status ?? 404 });
  });
});
afterAll(() => vi.unstubAllGlobals());

describe('the stored analysis in the worker', () => {
  it('reads the views part, then the whole analysis with the keys part, with the token', async () => {
    const from = { url: `${base}/ok`, token: 't1' };
    const views = await fetchViews(from);
    expect(views).not.toBeNull();
    const view = viewOf(views!);
    expect(view.index.values.nums).toBeInstanceOf(Float64Array);
    expect(view.index.values).toEqual(valueColumns(analysis.index.values));
    expect(view.index.fusions).toEqual(analysis.index.fusions);
    expect(view.index).not.toHaveProperty('keys');
    expect(await fullAnalysis({ views: views!, from })).toEqual(analysis);
    expect(tokens.slice(-2)).toEqual(['Bearer t1', 'Bearer t1']);
    expect(await fullAnalysis({ full: analysis })).toBe(analysis);
  });

  it('answers null when the server has no analysis, and a clear error for anything it cannot read', async () => {
    expect(await fetchViews({ url: `${base}/missing`, token: 't' })).toBeNull();
    await expect(fetchViews({ url: `${base}/old`, token: 't' })).rejects.toThrow(/cannot read/);
    await expect(fetchViews({ url: `${base}/broken`, token: 't' })).rejects.toThrow(/answered 500/);
    const views = await fetchViews({ url: `${base}/nokeys`, token: 't' });
    await expect(fullAnalysis({ views: views!, from: { url: `${base}/nokeys`, token: 't' } })).rejects.toThrow(/no cross-layer keys/);
  });
});
