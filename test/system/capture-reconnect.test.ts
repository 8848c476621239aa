import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { CaptureEntry } from '@seam/shared/model';
import { openDatabase, RunnerTokens, startServer, SyncMode, type RunningServer } from '@seam/server';
import { createRoom, waitFor } from '../helpers';
import { MLP, MLP_ARGS, startAgent, type AgentProcess } from '../helpers/capture-kit';

describe('a runner across a server restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'seam-reconnect-'));
  let server: RunningServer | undefined;
  let agent: AgentProcess | undefined;
  afterAll(async () => {
    await agent?.stop();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (port: number) => startServer({ port, host: '127.0.0.1', dataDir, runner: false, log: pino({ level: 'silent' }), jobs: { leaseMs: 8000 } });

  it('reconnects with backoff, keeps its running job, and the result is applied once', async () => {
    server = await start(0);
    const port = server.port;
    const room = await createRoom(server);
    const db = openDatabase(dataDir, SyncMode.normal);
    const { token } = new RunnerTokens(db).create('steady');
    db.close();
    agent = await startAgent(server.url, token, 'steady');

    const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ program: `import time\n\ntime.sleep(4)\n${MLP}`, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr', 'hlo-opt'] }),
    });
    const { job } = (await res.json()) as { job: CaptureEntry };
    await agent.saw(new RegExp(`running ${job.id}`));

    await server.close();
    await agent.saw(/disconnected; reconnecting in \d+ ms/);
    server = await start(port);
    const url = server.url;
    const get = async () => ((await (await fetch(`${url}/api/rooms/${room.id}/captures/${job.id}`, { headers: { authorization: `Bearer ${room.tokens.owner}` } })).json()) as { job: CaptureEntry }).job;
    let now = await get();
    await waitFor(async () => (now = await get()).status !== 'running', 'the capture to finish after the restart', 120_000);
    expect(now).toMatchObject({ status: 'done', attempt: 1 });
    expect(now.documents).toHaveLength(2);
    expect(agent.lines.filter((l) => l.includes('connected as')).length).toBeGreaterThanOrEqual(2);
  });
});
