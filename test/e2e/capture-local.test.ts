import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEntry } from '@seam/shared/model';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { MLP, MLP_ARGS } from './capture-kit';

describe('npm start with SEAM_RUNNER on', () => {
  let server: TestServer;
  let room: CreatedRoom;
  beforeAll(async () => {
    server = await startTestServer({ child: true, env: { SEAM_RUNNER: 'on' } });
    room = await createRoom(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(server.url + path, { headers: { authorization: `Bearer ${room.tokens.owner}` } })).json()) as T;

  it('starts a local CPU runner that lists its device and takes a capture', async () => {
    await waitFor(async () => (await get<{ runners: { name: string }[] }>(`/api/rooms/${room.id}/runners`)).runners.length > 0, 'the local runner to connect', 120_000);
    const { runners } = await get<{ runners: { name: string; capabilities: { platform: string; deviceCount: number } }[] }>(`/api/rooms/${room.id}/runners`);
    expect(runners[0]).toMatchObject({ name: 'local', capabilities: { platform: 'cpu', deviceCount: 1 } });

    const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr', 'hlo-opt'], runner: 'local' }),
    });
    expect(res.status).toBe(202);
    const { job } = (await res.json()) as { job: CaptureEntry };
    let now = job;
    await waitFor(async () => {
      now = (await get<{ job: CaptureEntry }>(`/api/rooms/${room.id}/captures/${job.id}`)).job;
      return now.status !== 'queued' && now.status !== 'running';
    }, 'the capture to finish', 120_000);
    expect(now.status).toBe('done');
    expect(now.provenance?.runner).toBe('local');
    expect(now.documents).toHaveLength(2);
  });
});
