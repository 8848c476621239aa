import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportResult } from '@seam/shared/model';
import { testApp, type TestApp } from '../testing';

const TRACE_GZ = readFileSync(new URL('../../../test/fixtures/trace/mlp.trace.json.gz', import.meta.url));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

let t: TestApp | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

describe('commitImport (embedded store)', () => {
  it('counts a gzipped trace imported again as unchanged, though it is stored as its text', async () => {
    t = testApp();
    const room = await t.room('gz');
    const put = () => t!.app.request(`/api/rooms/${room.id}/blobs/${sha(TRACE_GZ)}`, {
      method: 'PUT', headers: { authorization: `Bearer ${room.tokens.annotator}` }, body: new Uint8Array(TRACE_GZ),
    });
    const commit = async () => {
      const res = await t!.call('POST', `/api/rooms/${room.id}/imports`, {
        token: room.tokens.annotator, json: { files: [{ path: 'profile/mlp.trace.json.gz', sha256: sha(TRACE_GZ), bytes: TRACE_GZ.length }] },
      });
      return { status: res.status, json: (await res.json()) as ImportResult };
    };
    expect((await put()).status).toBe(201);
    const first = await commit();
    expect({ status: first.status, added: first.json.added, unchanged: first.json.unchanged }).toEqual({ status: 201, added: 1, unchanged: 0 });
    expect(first.json.documents[0]!.sha256).not.toBe(sha(TRACE_GZ));
    // The trace's blob is its text: the file's own bytes are staged again, as a push would.
    expect((await put()).status).toBe(201);
    const again = await commit();
    expect({ status: again.status, added: again.json.added, unchanged: again.json.unchanged }).toEqual({ status: 200, added: 0, unchanged: 1 });
    expect(t.deps.store.documents.list(room.id)).toHaveLength(1);
  });
});
