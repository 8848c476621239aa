import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { CaptureEntry } from '@seam/shared/model';
import { isLiveProcess } from '@seam/runners';
import { runTokenCli } from '@seam/server';
import { waitFor } from '../helpers';
import { getJob, MLP, MLP_ARGS, requestCapture, startAgent, startCaptureServer, waitJob, type AgentProcess, type CaptureServer } from '../helpers/capture-kit';

const FINAL = ['done', 'failed', 'cancelled'];
/**
 * The MLP, but where it can reach the test's `port` (the first runner, started with
 * `--allow-network`) it connects and then hangs: whatever the machine's load, the first runner is
 * still busy when it is killed, and the next attempt (sandboxed without network) runs straight
 * through. A socket, not a marker file: the sandbox lets a capture write nothing outside its scratch.
 */
const hangOnFirstAttempt = (port: number) => `import socket, time

try:
    _s = socket.create_connection(("127.0.0.1", ${port}), timeout=5)
    time.sleep(600)
except OSError:
    pass
${MLP}`;

/** Every process below `pid`, read from /proc (the capture runs in its own process group). */
function descendants(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

function killAll(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

describe('leases: a runner that disappears loses its job', () => {
  const servers: CaptureServer[] = [];
  const agents: AgentProcess[] = [];
  const orphans: number[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    killAll(orphans.splice(0));
    for (const c of cleanups.splice(0)) c();
    await Promise.all(agents.splice(0).map((a) => a.stop()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('completes a job on a second runner after the first is killed with SIGKILL mid-job', async () => {
    const s = await startCaptureServer({ leaseMs: 1500, maxAttempts: 3, retryWaitMs: 60_000 });
    servers.push(s);
    const a = await startAgent(s.url, s.token('cpu-a').token, 'cpu-a', ['--allow-network']);
    agents.push(a);
    let reached = 0;
    const hang = createServer((socket) => {
      reached++;
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => hang.close());
    const { body } = await requestCapture(s, { program: hangOnFirstAttempt((hang.address() as AddressInfo).port), entry: 'mlp', args: MLP_ARGS });
    await a.saw(new RegExp(`running ${body.job.id} \\(attempt 1\\)`));
    // The harness starts Python and imports JAX before the program runs: seconds, more on a busy machine.
    await waitFor(() => reached > 0, 'the first attempt to reach its hang', 120_000);
    const b = await startAgent(s.url, s.token('cpu-b').token, 'cpu-b');
    agents.push(b);
    expect(await getJob(s, body.job.id)).toMatchObject({ status: 'running', runningOn: 'cpu-a' });

    orphans.push(...descendants(a.child.pid!));
    a.child.kill('SIGKILL');
    await a.exited();

    const job = await waitJob(s, body.job.id, FINAL);
    expect(job.status).toBe('done');
    expect(job.attempt).toBe(2);
    expect(job.provenance?.runner).toBe('cpu-b');
    expect(job.documents.length).toBeGreaterThanOrEqual(4);
  });

  it('fails the job with a clear reason when no other runner takes it after the lease expires', async () => {
    const s = await startCaptureServer({ leaseMs: 1000, maxAttempts: 3, retryWaitMs: 1500 });
    servers.push(s);
    const a = await startAgent(s.url, s.token('only').token, 'only');
    agents.push(a);
    const { body } = await requestCapture(s, { program: `import time\n\ntime.sleep(600)\n${MLP}`, entry: 'mlp', args: MLP_ARGS });
    await a.saw(new RegExp(`running ${body.job.id}`));
    // The agent records the capture's process group beside it right after spawning it.
    const scratch = join(tmpdir(), 'seam-runner');
    await waitFor(() => readdirSync(scratch).some((d) => d.startsWith(`${a.child.pid}-`) && existsSync(join(scratch, d, '.pgid'))), 'the capture process to start');
    const left = readdirSync(scratch).filter((d) => d.startsWith(`${a.child.pid}-`)).map((d) => join(scratch, d));
    const capture = descendants(a.child.pid!);
    expect(capture.length).toBeGreaterThan(0);
    orphans.push(...capture);
    a.child.kill('SIGKILL');

    const job = await waitJob(s, body.job.id, FINAL, 30_000);
    expect(job.status).toBe('failed');
    expect(job.error?.reason).toBe('runner-lost');
    expect(job.error?.message).toMatch(/runner "only" stopped responding \(lease expired\).*no other runner took the job/);

    // A capture whose agent was SIGKILLed may outlive it for a while (the sandbox dies with its
    // parent, but the kernel's parent-death signal can miss); the next agent on the host stops
    // whatever is left of it and removes its scratch folder.
    expect(left.length).toBeGreaterThan(0);
    const next = await startAgent(s.url, s.token('next').token, 'next');
    agents.push(next);
    await next.saw(/cleaned up \d+ capture\(s\) left by an agent that died/);
    await waitFor(() => !capture.some(isLiveProcess), 'the orphaned capture to be stopped');
    await waitFor(() => left.every((d) => !existsSync(d)), 'the dead agent\'s scratch to be removed');
  });

  it('a revoked runner token is disconnected, takes no job and cannot post results', async () => {
    const s = await startCaptureServer({ leaseMs: 1000 });
    servers.push(s);
    const { id, token } = s.token('revoked');
    const a = await startAgent(s.url, token, 'revoked');
    agents.push(a);
    expect(runTokenCli(['revoke', id, '--data', s.dataDir], {})).toBe(0);
    await a.saw(/runner token revoked; stopping/, 30_000);
    expect(await a.exited()).toBe(0);

    const { body } = await requestCapture(s, { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] });
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/runner`, { headers: { authorization: `Bearer ${token}` } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(refused).toBe(401);
    const post = await fetch(`${s.url}/api/runner/jobs/${body.job.id}/attempts/1/result`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ok: false, error: { reason: 'runner-error', message: 'forged' } }),
    });
    expect(post.status).toBe(401);
    const job: CaptureEntry = await getJob(s, body.job.id);
    expect(job.status).toBe('queued');
    expect(job.attempt).toBe(0);

    // A live token's runner then takes it, so the job was waiting, not lost.
    const b = await startAgent(s.url, s.token('fresh').token, 'fresh');
    agents.push(b);
    await waitFor(async () => (await getJob(s, body.job.id)).status === 'done', 'the job to run on the fresh runner', 120_000);
  });
});
