import { expect } from 'vitest';
import type { CaptureEntry } from '@seam/shared/model';
import type { CreatedRoom, TestServer } from './server';
import { waitFor } from './sync-client';

/** Queues a capture as the room's owner (expecting 202) and resolves with the job once it has finished. */
export async function captureToEnd(server: Pick<TestServer, 'url'>, room: CreatedRoom, body: unknown): Promise<CaptureEntry> {
  const auth = { authorization: `Bearer ${room.tokens.owner}` };
  const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  const { job } = (await res.json()) as { job: CaptureEntry };
  let now = job;
  await waitFor(async () => {
    const got = await fetch(`${server.url}/api/rooms/${room.id}/captures/${job.id}`, { headers: auth });
    now = ((await got.json()) as { job: CaptureEntry }).job;
    return now.status !== 'queued' && now.status !== 'running';
  }, 'the capture to finish', 120_000);
  return now;
}
