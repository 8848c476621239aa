import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { decodeWindowColumns } from '@seam/shared/trace';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SyncMode } from '../config';
import { openStore } from '../store';
import { sqliteContent } from '../store/sqlite-shared-store';
import { TraceOverviews } from './overview';
import { TraceReducers } from './reducers';

const fixtures = new URL('../../../test/fixtures/trace/', import.meta.url);
const dataDir = mkdtempSync(join(tmpdir(), 'seam-overview-'));
const store = openStore(dataDir, SyncMode.normal);
const reducers = new TraceReducers(pino({ level: 'silent' }), { analyzerWorkers: 1, analyzerHeapMb: 256 });
afterAll(() => {
  reducers.close();
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function* whole(data: Uint8Array): AsyncGenerator<Uint8Array> {
  yield data;
}

describe('trace overviews', () => {
  it.each([
    ['a Chrome JSON trace', gunzipSync(readFileSync(new URL('mlp.trace.json.gz', fixtures)))],
    ['an XSpace', readFileSync(new URL('mlp.xplane.pb', fixtures))],
  ])('are written with the reduction of %s, the same as those computed later from its stored blocks', async (_, bytes) => {
    const sha256 = `sha-${bytes.length}`;
    const reduced = await reducers.reduce(whole(bytes));
    store.db.prepare('INSERT INTO blobs (sha256, bytes, gzip, analysis_gzip) VALUES (?, ?, ?, ?)').run(sha256, bytes.length, Buffer.alloc(0), Buffer.alloc(0));
    store.traces.put(sha256, reduced);
    // Stored with the reduction, before any request for it.
    expect(store.traces.overview(sha256)).toBeDefined();
    const overviews = new TraceOverviews(sqliteContent(store).traces);
    const written = decodeWindowColumns(gunzipSync(await overviews.get(sha256)));
    expect(written.tracks.some((t) => t.start.length > 0)).toBe(true);
    // A reduction stored before overviews were: the overview comes from the blocks.
    store.db.prepare('DELETE FROM trace_overviews WHERE sha256 = ?').run(sha256);
    const computed = decodeWindowColumns(gunzipSync(await overviews.get(sha256)));
    expect(written).toEqual(computed);
  });
});
