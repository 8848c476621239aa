import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CaptureRequestSchema, RoomKey, type CaptureEntry } from '@seam/shared/model';
import { readServerMessage, writeRunnerMessage, type ServerToAgent } from '@seam/shared/protocol';
import { postgresRunnerRegistry } from '../../server/src/store/postgres/runner-registry';
import { connectPgJobSignal } from '../../server/src/jobs/pg-job-signal';
import { runSharedTokenCli } from '../../server/src/jobs/token-cli';
import { CaptureService, type CaptureDocument } from '../../server/src/jobs/service';
import { openPostgresStore } from '../../server/src/store/postgres';
import type { SharedStore } from '../../server/src/store/shared-store';
import { StoreUnavailableError } from '../../server/src/store/store-errors';
import { connectClient, createRoom, waitFor, type CreatedRoom } from '../helpers';
import { useScaledCluster } from '../helpers/scale/scaled-cluster';
import { captureGroup, getJob, MLP, MLP_ARGS, requestCapture, startAgent, waitJob, type AgentProcess } from '../helpers/capture-kit';

/**
 * Captures in scaled mode: three Seam instances on one PostgreSQL and one Redis, behind HAProxy,
 * with real `seam-runner` agents (and JAX); then two capture services in this process on the same
 * database, with short leases, for what takes a lease's expiry to show.
 */

const FINAL = ['done', 'failed', 'cancelled'];

const scaled = useScaledCluster(3, 'seam_captures');

let shared: SharedStore;
let room: CreatedRoom;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  shared = await openPostgresStore(scaled.databaseUrl, { max: 4 });
  room = await createRoom(scaled.cluster);
});
afterAll(async () => {
  await shared?.close();
});

/** Instance `i`'s own address. */
const direct = (i: number) => ({ url: scaled.cluster.instances[i]!.server!.url, room });

/** The names of the runners instance `i` lists (those of every instance). */
async function runnersOn(i: number): Promise<string[]> {
  const res = await fetch(`${direct(i).url}/api/rooms/${room.id}/runners`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
  return ((await res.json()) as { runners: { name: string }[] }).runners.map((r) => r.name);
}

/** The cluster instance holding runner `name`'s socket, by the process id in its shared registry entry; -1 when none does. */
async function holderOf(name: string): Promise<number> {
  const live = postgresRunnerRegistry(scaled.databaseUrl, { max: 1 });
  try {
    const entry = (await live.list()).find((r) => r.name === name);
    return entry ? scaled.cluster.instances.findIndex((i) => entry.instanceId.split(':')[1] === String(i.server?.child?.pid)) : -1;
  } finally {
    await live.close();
  }
}

describe('captures across instances', () => {
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.stop()));
  });

  it('runs a capture asked on one instance on the runner dialing another, its dumps seen by a client of a third', async () => {
    // Minted in PostgreSQL by the runner-token command, as an operator of a scaled deployment does.
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`error: ${l}`) };
    expect(await runSharedTokenCli(['create', 'cpu-a'], {}, scaled.databaseUrl, io)).toBe(0);
    const minted = lines.join('\n').split('\n').at(-1)!;
    expect(minted).toMatch(/^srn_/);
    expect(await runSharedTokenCli(['create', 'local'], {}, scaled.databaseUrl, io)).toBe(2);
    expect(await runSharedTokenCli(['revoke', 'rt_nope'], {}, scaled.databaseUrl, io)).toBe(1);
    expect(await runSharedTokenCli(['mint'], {}, scaled.databaseUrl, io)).toBe(2);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^error: .*reserved/), 'error: no live runner token with id rt_nope', expect.stringMatching(/^error: usage/)]);
    expect((await shared.runnerTokens.list()).map((t) => t.name)).toEqual(['cpu-a']);
    const agent = await startAgent(direct(0).url, minted, 'cpu-a');
    agents.push(agent);
    expect(await holderOf('cpu-a')).toBe(0);
    // Connected to A, listed by B and C too.
    for (const i of [0, 1, 2]) expect(await runnersOn(i)).toEqual(['cpu-a']);

    const viewer = connectClient(direct(2), room.id, room.tokens.viewer);
    await viewer.synced();
    const asked = await requestCapture(direct(1), { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr', 'hlo-opt'] });
    expect(asked.status).toBe(202);
    const job = await waitJob(direct(2), asked.body.job.id, FINAL);
    expect(job).toMatchObject({ status: 'done', attempt: 1, provenance: expect.objectContaining({ runner: 'cpu-a' }) });
    expect(job.documents.length).toBeGreaterThanOrEqual(2);
    const group = await captureGroup(viewer, job);
    expect(group.map((d) => d.kind)).toEqual(expect.arrayContaining(['jaxpr', 'hlo-opt']));
    expect(group.every((d) => d.captureId === job.id && d.addedBy === 'runner:cpu-a')).toBe(true);
    const text = await fetch(`${direct(2).url}/api/rooms/${room.id}/documents/${group[0]!.id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    expect(text.status).toBe(200);
    await waitFor(() => (viewer.doc.getMap<CaptureEntry>(RoomKey.captures).get(job.id))?.status === 'done', 'the done entry in the room');
    viewer.destroy();

    // Run again through A with a note on the first version: what was carried is read through C.
    const jaxpr = group.find((d) => d.kind === 'jaxpr')!;
    const noted = await fetch(`${direct(1).url}/api/rooms/${room.id}/annotations`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docId: jaxpr.id, from: 0, to: 1, kind: 'note', body: 'here', author: { id: 'ada', name: 'Ada', color: '#1971c2' } }),
    });
    expect(noted.status).toBe(201);
    const again = await requestCapture(direct(0), { program: MLP, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr', 'hlo-opt'], previous: job.id });
    expect(again.status).toBe(202);
    expect(await waitJob(direct(2), again.body.job.id, FINAL)).toMatchObject({ status: 'done', versionOf: job.id, version: 2, carried: { annotations: 1, detached: 0, notCarried: 0 } });
  });

  it('finishes a capture whose runner\'s instance is killed mid-capture, through the runner reconnecting to another; nothing is left running', async () => {
    const token = await shared.runnerTokens.create('cpu-b');
    // Through HAProxy, so that a reconnect finds another instance.
    const agent = await startAgent(scaled.cluster.url, token.token, 'cpu-b');
    agents.push(agent);
    let holder = -1;
    await waitFor(async () => (holder = await holderOf('cpu-b')) >= 0, 'the instance holding the runner');
    const other = (holder + 1) % 3;
    const asked = await requestCapture(direct(other), { program: `import time\n\ntime.sleep(3)\n${MLP}`, entry: 'mlp', args: MLP_ARGS, capture: ['jaxpr'] });
    await agent.saw(new RegExp(`running ${asked.body.job.id}`));
    await scaled.cluster.instances[holder]!.kill();
    await agent.saw(/disconnected; reconnecting/);

    const job = await waitJob(direct(other), asked.body.job.id, FINAL);
    expect(job.status).toBe('done');
    expect(job.provenance?.runner).toBe('cpu-b');
    await waitFor(async () => ![-1, holder].includes(await holderOf('cpu-b')), 'the runner on another instance');
    expect(await runnersOn(other)).toContain('cpu-b');
    const all = await shared.jobs.listRoom(room.id);
    expect(all.filter((j) => !FINAL.includes(j.status))).toEqual([]);
    expect((await getJob(direct(other), job.id)).status).toBe('done');
  });
});

/** A runner socket held in this process: what it was sent. */
class HandSocket {
  readonly sent: ServerToAgent[] = [];
  send(data: string): void {
    const m = readServerMessage(data);
    if (m) this.sent.push(m);
  }
  close(): void {}
}

const caps = { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7' };
const quiet = { info: () => undefined, warn: () => undefined };
const tiny = CaptureRequestSchema.parse({ program: 'def f():\n    return 1\n', entry: 'f', args: [], capture: ['jaxpr'] });

describe('two capture services on one database', () => {
  let closers: (() => Promise<void>)[] = [];
  let published: CaptureEntry[] = [];
  const ingested: CaptureDocument[] = [];

  const service = async (leaseMs: number, retryWaitMs: number): Promise<CaptureService> => {
    const store = await openPostgresStore(scaled.databaseUrl, { max: 2 });
    const s = new CaptureService({
      jobs: store.jobs, tokens: store.runnerTokens, signal: await connectPgJobSignal(scaled.databaseUrl, quiet), runners: postgresRunnerRegistry(scaled.databaseUrl, { max: 1 }),
    }, {
      ingest: async (_room, doc) => {
        ingested.push(doc);
        return { id: `doc-${ingested.length}` };
      },
      publish: (_room, entry) => published.push(entry),
      carry: async () => ({ annotations: 0, detached: 0, notCarried: 0 }),
    }, quiet, { leaseMs, maxAttempts: 3, retryWaitMs });
    closers.push(async () => {
      await s.close();
      await store.close();
    });
    return s;
  };
  afterEach(async () => {
    await Promise.all(closers.map((c) => c()));
    closers = [];
    published = [];
  });

  const runner = async (s: CaptureService, name: string) => {
    const token = await shared.runnerTokens.create(name);
    const socket = new HandSocket();
    const h = s.attach(token, socket);
    h.onMessage(writeRunnerMessage({ type: 'hello', name, capabilities: caps, agent: 'test' }));
    h.onMessage(writeRunnerMessage({ type: 'ready' }));
    await h.handled();
    return { token, socket, h };
  };
  const jobOf = (socket: HandSocket, jobId: string) => socket.sent.find((m) => m.type === 'job' && m.jobId === jobId);

  it('sweeps a lease its runner stopped renewing back to a runner on the other instance, takes the result there, and cancels across instances', async () => {
    const a = await service(600, 60_000);
    const b = await service(600, 60_000);
    const onA = await runner(a, 'hand-a');
    const job = await b.request(room.id, tiny, 'owner');
    await waitFor(() => jobOf(onA.socket, job.id) !== undefined, 'the job offered to the runner on the other instance');

    // The runner on A goes silent (no heartbeat): the lease expires and a sweep (by any instance
    // on the database, the cluster's included) requeues it.
    const onB = await runner(b, 'hand-b');
    await waitFor(() => jobOf(onB.socket, job.id) !== undefined, 'the job swept back and leased to the runner on B');
    const running = await shared.jobs.get(job.id);
    expect(running).toMatchObject({ status: 'running', attempt: 2, runnerName: 'hand-b' });

    // A's runner's late result is refused; B's is applied on A, where the capture was not asked.
    const body = { ok: true as const, provenance: { runner: 'hand-a' }, artifacts: [{ name: 'jaxpr', kind: 'jaxpr' as const, title: 'f: jaxpr', text: '{ lambda ; . let  in (1,) }' }] };
    expect((await a.postResult(onA.token, job.id, 1, body))?.applied).toBe(false);
    const outcome = await a.postResult(onB.token, job.id, 2, { ...body, provenance: { runner: 'hand-b' } });
    expect(outcome?.job).toMatchObject({ status: 'done', attempt: 2, documents: [`doc-${ingested.length}`] });

    // Asked on A, whose runner is busy: B's runner, idle again, is offered it; cancelled through A, B's runner is told.
    onB.h.onMessage(writeRunnerMessage({ type: 'ready' }));
    await onB.h.handled();
    const second = await a.request(room.id, tiny, 'owner');
    await waitFor(() => jobOf(onB.socket, second.id) !== undefined, 'the second job offered on B');
    expect((await a.cancel(second.id))?.status).toBe('cancelled');
    await waitFor(() => onB.socket.sent.some((m) => m.type === 'cancel' && m.jobId === second.id && m.reason === 'cancelled'), 'the cancel on B');
    expect(onA.socket.sent.some((m) => m.type === 'job' && m.jobId === second.id)).toBe(false);
  });

  it('lists a runner of one instance through the other until a lease passes without its heartbeat, as when its instance is killed', async () => {
    const a = await service(600, 60_000);
    const b = await service(600, 60_000);
    const onA = await runner(a, 'hand-d');
    expect((await b.runners()).map((r) => r.name)).toContain('hand-d');
    // A heartbeat keeps it listed; then A stops renewing it (killed: no close, no heartbeat) and it is gone after a lease.
    onA.h.onMessage(writeRunnerMessage({ type: 'heartbeat', jobs: [] }));
    await onA.h.handled();
    expect((await b.runners()).map((r) => r.name)).toContain('hand-d');
    await waitFor(async () => !(await b.runners()).some((r) => r.name === 'hand-d'), 'the runner gone from the listing after a lease');
    expect((await a.runners()).map((r) => r.name)).not.toContain('hand-d');
  });

  it('keeps a runner listed by its newest connection: an older one closing or renewing late changes nothing', async () => {
    const live = postgresRunnerRegistry(scaled.databaseUrl, { max: 1 });
    try {
      const entry = { id: 'rt_x/hand-e', name: 'hand-e', capabilities: caps, connectedAt: 1, instanceId: 'old' };
      await live.put('s1', entry, 60_000);
      await live.put('s2', { ...entry, connectedAt: 2, instanceId: 'new' }, 60_000);
      await live.renew('s1', entry, 60_000);
      await live.drop(entry.id, 's1');
      expect((await live.list()).filter((r) => r.name === 'hand-e')).toEqual([{ ...entry, connectedAt: 2, instanceId: 'new' }]);
      await live.drop(entry.id, 's2');
      expect((await live.list()).some((r) => r.name === 'hand-e')).toBe(false);
    } finally {
      await live.close();
    }
  });

  it('fails a swept job with the named error when no runner takes it within the retry wait', async () => {
    const a = await service(400, 800);
    const onA = await runner(a, 'hand-c');
    const job = await a.request(room.id, tiny, 'owner');
    await waitFor(() => jobOf(onA.socket, job.id) !== undefined, 'the job leased');
    onA.h.onClose();
    const failed = await waitFor(async () => (await shared.jobs.get(job.id))?.status === 'failed', 'the job failed', 20_000).then(() => shared.jobs.get(job.id));
    expect(failed?.error).toMatchObject({ reason: 'runner-lost', message: expect.stringMatching(/runner "hand-c" stopped responding \(lease expired\).*no other runner took the job/) });
    expect((await shared.jobs.listRoom(room.id)).filter((j) => !FINAL.includes(j.status))).toEqual([]);
  });
  it('ignores notices on the channel that are not Seam\'s, and refuses to start listening where PostgreSQL cannot be reached', async () => {
    const signal = await connectPgJobSignal(scaled.databaseUrl, quiet);
    const heard: unknown[] = [];
    signal.listen((n) => heard.push(n));
    const client = new pg.Client({ connectionString: scaled.databaseUrl });
    await client.connect();
    try {
      for (const payload of ['{bad', '{"kind":"cancel","jobId":1}', 'x'.repeat(600), '{"kind":"queued"}']) await client.query("SELECT pg_notify('seam_jobs', $1)", [payload]);
      await waitFor(() => heard.length > 0, 'the well-formed notice');
      // (Only well-formed notices, whoever else on the database sends one meanwhile.)
      expect(heard.every((n) => JSON.stringify(n) === '{"kind":"queued"}')).toBe(true);
    } finally {
      await client.end();
      await signal.close();
    }
    await expect(connectPgJobSignal('postgres://seam@127.0.0.1:1/none', quiet)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
