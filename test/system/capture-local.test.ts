import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEntry } from '@seam/shared/model';
import { createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { captureToEnd } from '../helpers/capture';
import { MLP, MLP_ARGS } from '../helpers/capture-kit';

/** Linux: the ids of `parent`'s child processes whose command line contains `needle`. */
function childProcesses(parent: number, needle: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      // /proc/PID/stat: "PID (comm) STATE PPID …"; comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      return ppid === parent && cmdline.includes(needle) ? [Number(d)] : [];
    } catch {
      return []; // the process ended while we looked
    }
  });
}

interface ListedRunner { name: string; connectedAt: number; capabilities: { platform: string; deviceCount: number } }

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

  const runners = async () => (await get<{ runners: ListedRunner[] }>(`/api/rooms/${room.id}/runners`)).runners;

  /** Runs the MLP capture on the local runner and resolves with the finished job. */
  const capture = (): Promise<CaptureEntry> =>
    captureToEnd(server, room, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr', 'hlo-opt'], runner: 'local' });

  it('starts a local CPU runner that lists its device and takes a capture', async () => {
    await waitFor(async () => (await runners()).length > 0, 'the local runner to connect', 120_000);
    expect((await runners())[0]).toMatchObject({ name: 'local', capabilities: { platform: 'cpu', deviceCount: 1 } });
    const job = await capture();
    expect(job.status).toBe('done');
    expect(job.provenance?.runner).toBe('local');
    expect(job.documents).toHaveLength(2);
  });

  it('starts the runner again after it is killed, and the new one takes a capture', async () => {
    const serverPid = server.child?.pid ?? 0;
    const [before] = await runners();
    const [pid] = childProcesses(serverPid, 'seam-runner.js');
    expect(before?.name).toBe('local');
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? 0, 'SIGKILL');

    await waitFor(async () => (await runners()).some((r) => r.connectedAt > (before?.connectedAt ?? Infinity)), 'a new local runner to connect', 120_000);
    const after = await runners();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ name: 'local', capabilities: { platform: 'cpu', deviceCount: 1 } });
    const restarted = childProcesses(serverPid, 'seam-runner.js');
    expect(restarted).toHaveLength(1);
    expect(restarted[0]).not.toBe(pid);

    const job = await capture();
    expect(job.status).toBe('done');
    expect(job.provenance?.runner).toBe('local');
  });
});
