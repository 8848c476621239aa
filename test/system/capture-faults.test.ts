import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { CaptureEntry, DocumentMeta } from '@seam/shared/model';
import { readServerMessage, writeRunnerMessage, type JobMessage } from '@seam/shared/protocol';
import { waitFor, type TestClient } from '../helpers';
import { getJob, MLP, MLP_ARGS, requestCapture, startCaptureRoom, startCaptureServer, waitJob, type AgentProcess, type CaptureRoom, type CaptureServer } from '../helpers/capture-kit';

const FINAL = ['done', 'failed', 'cancelled'];

describe('a capture that misbehaves is stopped and reported into the room', () => {
  let room: CaptureRoom | undefined;
  let s: CaptureServer;
  let agent: AgentProcess;
  let viewer: TestClient;

  beforeAll(async () => {
    room = await startCaptureRoom('cpu-faults', ['--memory-limit', String(4 * 1024 ** 3), '--max-output', String(8 * 1024 ** 2)]);
    ({ s, agent, viewer } = room);
  });
  afterAll(async () => {
    await room?.close();
  });

  const run = async (program: string, timeoutS = 120) => {
    const { status, body } = await requestCapture(s, { program, entry: 'f', args: [], capture: ['jaxpr'], options: { timeoutS } });
    expect(status).toBe(202);
    return waitJob(s, body.job.id, FINAL);
  };

  it("reports a syntax error's traceback into the room", async () => {
    const job = await run('import jax\n\ndef f(:\n    return 1\n');
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('program-error');
    expect(job.error?.traceback).toMatch(/File "program\.py", line 3/);
    expect(job.error?.traceback).toMatch(/SyntaxError/);
    await waitFor(() => viewer.doc.getMap<CaptureEntry>('captures').get(job.id)?.error?.traceback?.includes('SyntaxError') === true, 'the traceback in the room');
  });

  it('stops an infinite loop at its timeout', async () => {
    const job = await run('while True:\n    pass\n', 3);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ reason: 'timeout', message: expect.stringMatching(/3 s timeout/) });
  });

  it('stops a huge allocation at the memory limit', async () => {
    const job = await run('import numpy as np\n\nhuge = np.ones(1 << 34, dtype=np.uint8)\n\ndef f():\n    return huge\n');
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('memory-limit');
    expect(job.error?.message).toMatch(/memory/i);
  });

  it('cuts a program that prints 1 GB, keeping the last lines', async () => {
    const job = await run("import sys\n\nline = 'x' * 1023 + '\\n'\nfor i in range(1 << 20):\n    sys.stdout.write(line)\n\ndef f():\n    return 0\n");
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('output-limit');
    expect(job.error?.traceback).toMatch(/x{100}/);
    expect((job.error?.traceback ?? '').length).toBeLessThan(64 * 1024);
  });

  it('cancel stops a running job, and the runner takes the next one', async () => {
    const { body } = await requestCapture(s, { program: 'import time\n\ntime.sleep(600)\n\ndef f():\n    return 0\n', entry: 'f', args: [], capture: ['jaxpr'] });
    await waitFor(async () => (await getJob(s, body.job.id)).phase === 'running', 'the sleeper to run');
    const del = await fetch(`${s.url}/api/rooms/${s.room.id}/captures/${body.job.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${s.room.tokens.owner}` } });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { job: CaptureEntry }).job.status).toBe('cancelled');
    await agent.saw(new RegExp(`stopping ${body.job.id}: cancelled`));
    // One job at a time per runner: the MLP can only complete once the sleeper's process is gone.
    const next = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] });
    expect((await waitJob(s, next.body.job.id, FINAL)).status).toBe('done');
    expect((await getJob(s, body.job.id)).status).toBe('cancelled');
  });
});

describe('results are applied exactly once', () => {
  let s: CaptureServer;
  beforeAll(async () => {
    s = await startCaptureServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('applies a result posted twice once, and refuses a stale attempt', async () => {
    const { token } = s.token('hand');
    // A runner speaking the protocol by hand, so the same result can be posted twice.
    const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/runner`, { headers: { authorization: `Bearer ${token}` } });
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(d.toString()));
    await new Promise((r) => ws.once('open', r));
    ws.send(writeRunnerMessage({ type: 'hello', name: 'hand', capabilities: { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11' }, agent: 'test' }));
    ws.send(writeRunnerMessage({ type: 'ready' }));
    const { body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] });
    let job: JobMessage | undefined;
    await waitFor(() => (job = frames.map(readServerMessage).find((m): m is JobMessage => m?.type === 'job')) !== undefined, 'a job frame');
    expect(job!.jobId).toBe(body.job.id);

    const post = (attempt: number) => fetch(`${s.url}/api/runner/jobs/${job!.jobId}/attempts/${attempt}/result`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, provenance: { runner: 'hand' }, artifacts: [{ name: 'jaxpr', kind: 'jaxpr', title: 'mlp: jaxpr', text: '{ lambda ; a:f32[2]. let b:f32[2] = neg a in (b,) }\n' }] }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { applied: boolean; job: CaptureEntry } }));

    const [first, second] = await Promise.all([post(job!.attempt), post(job!.attempt)]);
    expect([first.body.applied, second.body.applied].sort()).toEqual([false, true]);
    const third = await post(job!.attempt);
    expect(third.body.applied).toBe(false);
    const stale = await post(job!.attempt + 1);
    expect(stale.body.applied).toBe(false);

    const done = await getJob(s, job!.jobId);
    expect(done.status).toBe('done');
    expect(done.documents).toHaveLength(1);
    const res = await fetch(`${s.url}/api/rooms/${s.room.id}`, { headers: { authorization: `Bearer ${s.room.tokens.owner}` } });
    const listed = (await res.json()) as { documents: DocumentMeta[] };
    expect(listed.documents.filter((d) => d.title === 'mlp: jaxpr')).toEqual([expect.objectContaining({ addedBy: 'runner:hand', captureId: job!.jobId })]);
    ws.close();
  });
});
