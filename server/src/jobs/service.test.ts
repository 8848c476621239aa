import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CaptureRequestSchema, type CaptureEntry } from '@seam/shared/model';
import { CloseCode, readServerMessage, RUNNER_LIMITS, writeRunnerMessage, type ServerToAgent } from '@seam/shared/protocol';
import { SyncMode } from '../config';
import { openStore, type Store } from '../store';
import { StoreUnavailableError } from '../store/store-errors';
import { CaptureService, type CaptureDocument } from './service';
import { embeddedCaptureStores } from './wiring';
import type { RunnerTokenInfo } from './runner-tokens';

/** A socket as the runner endpoint hands it to the service: what was sent, and how it was closed. */
class RecordingSocket {
  readonly sent: ServerToAgent[] = [];
  closed: number | undefined;
  send(data: string): void {
    const m = readServerMessage(data);
    if (m) this.sent.push(m);
  }
  close(code: number): void {
    this.closed = code;
  }
}

const caps = { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11.7' };
const request = CaptureRequestSchema.parse({ program: 'def f():\n    return 1\n', entry: 'f', args: [], capture: ['jaxpr'] });
const quiet = { info: () => undefined, warn: () => undefined };

describe('CaptureService', () => {
  let dir: string;
  let store: Store;
  let service: CaptureService;
  let published: CaptureEntry[];
  let ingested: CaptureDocument[];
  let carries: { previous: { id: string; documents: readonly string[] }; next: { id: string; documents: readonly string[] } }[];
  let carryFails: boolean;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-service-'));
    store = openStore(dir, SyncMode.normal);
    published = [];
    ingested = [];
    carries = [];
    carryFails = false;
    service = new CaptureService(embeddedCaptureStores(store), {
      ingest: async (_room, doc) => {
        ingested.push(doc);
        return { id: `doc-${ingested.length}` };
      },
      publish: (_room, entry) => published.push(entry),
      carry: async (_room, previous, next) => {
        if (carryFails) throw new Error('text gone');
        carries.push({ previous: { id: previous.id, documents: previous.documents }, next: { id: next.id, documents: next.documents } });
        return { annotations: 3, detached: 1, notCarried: 0 };
      },
    }, quiet, { leaseMs: 60_000 });
  });
  afterEach(async () => {
    await service.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Attaches a socket and gives it `frames`, resolving once the service has handled them all. */
  const attach = async (token: RunnerTokenInfo, ...frames: string[]) => {
    const socket = new RecordingSocket();
    const h = service.attach(token, socket);
    const send = async (...more: string[]) => {
      for (const f of more) h.onMessage(f);
      await h.handled();
    };
    await send(...frames);
    return { socket, h, send };
  };
  const connect = (token: RunnerTokenInfo, name: string) => attach(token, writeRunnerMessage({ type: 'hello', name, capabilities: caps, agent: 'test' }));
  const ready = writeRunnerMessage({ type: 'ready' });

  it('closes a socket whose first frame is not hello, or not a message at all', async () => {
    const token = await service.tokens.create('a');
    expect((await attach(token, ready)).socket.closed).toBe(CloseCode.malformedMessage);
    expect((await attach(token, '{not json')).socket.closed).toBe(CloseCode.malformedMessage);
  });

  it('welcomes a runner, leases it a job when it is ready, and publishes each step to the room', async () => {
    const { socket, send } = await connect(await service.tokens.create('cpu-1'), 'cpu-1');
    expect(socket.sent[0]).toMatchObject({ type: 'welcome', runnerId: expect.stringMatching(/\/cpu-1$/), leaseMs: 60_000 });
    const job = await service.request('room', request, 'owner');
    expect(job.status).toBe('queued');
    await send(ready);
    expect(socket.sent[1]).toMatchObject({ type: 'job', jobId: job.id, attempt: 1 });
    await send(writeRunnerMessage({ type: 'status', jobId: job.id, attempt: 1, phase: 'compiling' }));
    expect(published.map((e) => [e.status, e.phase])).toEqual([['queued', undefined], ['running', 'leased'], ['running', 'compiling']]);
    expect(await service.runners()).toEqual([expect.objectContaining({ name: 'cpu-1', busy: true })]);
  });

  it('tells a runner to stop an attempt it heartbeats but no longer holds', async () => {
    const { socket, send } = await connect(await service.tokens.create('cpu-1'), 'cpu-1');
    await send(writeRunnerMessage({ type: 'heartbeat', jobs: [{ jobId: 'cap_gone', attempt: 3 }] }));
    expect(socket.sent.at(-1)).toEqual({ type: 'cancel', jobId: 'cap_gone', attempt: 3, reason: 'lease lost' });
  });

  it('sends cancel to the runner of a running job that a user cancels', async () => {
    const { socket, send } = await connect(await service.tokens.create('cpu-1'), 'cpu-1');
    const job = await service.request('room', request, 'owner');
    await send(ready);
    expect((await service.cancel(job.id))?.status).toBe('cancelled');
    expect(socket.sent.at(-1)).toEqual({ type: 'cancel', jobId: job.id, attempt: 1, reason: 'cancelled' });
    expect(await service.cancel(job.id)).toBeNull();
  });

  it('applies a result only from the token whose runner holds the attempt', async () => {
    const mine = await service.tokens.create('cpu-1');
    const other = await service.tokens.create('other');
    const { send } = await connect(mine, 'cpu-1');
    const job = await service.request('room', request, 'owner');
    await send(ready);
    const body = { ok: true as const, provenance: { runner: 'cpu-1' }, artifacts: [{ name: 'jaxpr', kind: 'jaxpr' as const, title: 'f: jaxpr', text: '{ lambda ; . let  in (1,) }' }] };
    expect((await service.postResult(other, job.id, 1, body))?.applied).toBe(false);
    const outcome = await service.postResult(mine, job.id, 1, body);
    expect(outcome?.applied).toBe(true);
    expect(outcome?.job).toMatchObject({ status: 'done', documents: ['doc-1'], provenance: { runner: 'cpu-1', platform: 'cpu' } });
    expect(ingested).toEqual([{ title: 'f: jaxpr', text: body.artifacts[0]!.text, kind: 'jaxpr', addedBy: 'runner:cpu-1', captureId: job.id }]);
    expect(await service.postResult(mine, 'cap_unknown', 1, body)).toBeNull();
  });

  it('closes the socket of a revoked token on its next frame and leases it nothing', async () => {
    const token = await service.tokens.create('cpu-1');
    const { socket, send } = await connect(token, 'cpu-1');
    await service.tokens.revoke(token.id);
    await service.request('room', request, 'owner');
    await send(ready);
    expect(socket.closed).toBe(CloseCode.tokenRevoked);
    expect(socket.sent.some((m) => m.type === 'job')).toBe(false);
  });

  it('refuses a token registering as another runner\'s name, or as the reserved local, and says why', async () => {
    const token = await service.tokens.create('cpu-1');
    const other = await connect(token, 'cpu-2');
    expect(other.socket.closed).toBe(CloseCode.unauthorized);
    expect(other.socket.sent).toEqual([{ type: 'error', code: 'unauthorized', message: expect.stringContaining('bound to the runner name "cpu-1"') }]);
    const local = await connect(token, 'local');
    expect(local.socket.closed).toBe(CloseCode.unauthorized);
    expect(local.socket.sent[0]).toMatchObject({ type: 'error', message: expect.stringContaining('reserved') });
    expect(await service.runners()).toEqual([]);
    const own = await connect(await service.tokens.rotate('local'), 'local');
    expect(own.socket.closed).toBeUndefined();
    expect(await service.runners()).toEqual([expect.objectContaining({ name: 'local' })]);
  });

  it('leases a job aimed at a runner name only to a runner holding that name\'s token', async () => {
    const a = await connect(await service.tokens.create('cpu-1'), 'cpu-1');
    const job = await service.request('room', { ...request, runner: 'cpu-2' }, 'owner');
    await a.send(ready);
    expect(a.socket.sent.some((m) => m.type === 'job')).toBe(false);
    const b = await connect(await service.tokens.create('cpu-2'), 'cpu-2');
    await b.send(ready);
    expect(b.socket.sent.at(-1)).toMatchObject({ type: 'job', jobId: job.id });
  });

  it('refuses capabilities past their bounds, naming the field', async () => {
    const token = await service.tokens.create('cpu-1');
    const hello = async (capabilities: object) => (await attach(token, JSON.stringify({ type: 'hello', name: 'cpu-1', capabilities, agent: 'test' }))).socket;
    const long = await hello({ ...caps, deviceKind: 'x'.repeat(RUNNER_LIMITS.text + 1) });
    expect(long.closed).toBe(CloseCode.malformedMessage);
    expect(long.sent[0]).toMatchObject({ type: 'error', message: 'capabilities.deviceKind is longer than 128 characters' });
    expect((await hello({ ...caps, deviceCount: 1e9 })).sent[0]).toMatchObject({ message: expect.stringContaining('deviceCount') });
    expect((await hello({ ...caps, deviceCount: 8 })).closed).toBeUndefined();
    const { socket: flood } = await attach(token,
      writeRunnerMessage({ type: 'hello', name: 'cpu-1', capabilities: caps, agent: 'test' }),
      writeRunnerMessage({ type: 'heartbeat', jobs: Array.from({ length: RUNNER_LIMITS.heartbeatJobs + 1 }, (_, i) => ({ jobId: `j${i}`, attempt: 1 })) }));
    expect(flood.closed).toBe(CloseCode.malformedMessage);
  });

  it('makes a re-run the next version of the capture it names, carries its annotations over before publishing it done, and survives a failed carry', async () => {
    const mine = await service.tokens.create('cpu-1');
    const { send } = await connect(mine, 'cpu-1');
    const body = { ok: true as const, provenance: { runner: 'cpu-1' }, artifacts: [{ name: 'jaxpr', kind: 'jaxpr' as const, title: 'f: jaxpr', text: '{ lambda ; . let  in (1,) }' }] };
    const run = async (previous?: string) => {
      const job = await service.request('room', { ...request, ...(previous ? { previous } : {}) }, 'owner');
      await send(ready);
      return (await service.postResult(mine, job.id, 1, body))?.job;
    };
    const v1 = await run();
    expect([v1?.versionOf, v1?.version, v1?.carried]).toEqual([null, null, null]);
    expect(carries).toEqual([]);
    const v2 = await run(v1?.id);
    expect(v2).toMatchObject({ status: 'done', versionOf: v1?.id, version: 2, carried: { annotations: 3, detached: 1, notCarried: 0 } });
    expect(carries).toEqual([{ previous: { id: v1?.id, documents: ['doc-1'] }, next: { id: v2?.id, documents: ['doc-2'] } }]);
    // The room sees the version and the counts with the status done, in one entry.
    expect(published.find((e) => e.id === v2?.id && e.status === 'done')).toMatchObject({ versionOf: v1?.id, version: 2, carried: { annotations: 3, detached: 1 } });
    carryFails = true;
    const v3 = await run(v2?.id);
    expect(v3).toMatchObject({ status: 'done', versionOf: v2?.id, version: 3, carried: null, documents: ['doc-3'] });
    // A previous capture of another room is not taken for this one's.
    const other = await service.request('elsewhere', { ...request, previous: v1?.id }, 'owner');
    expect([other.versionOf, other.version]).toEqual([null, null]);
  });
  it('closes a runner saying hello with 4500 while the store cannot answer its token, and still queues a capture', async () => {
    const token = await service.tokens.create('cpu-1');
    const stores = embeddedCaptureStores(store);
    const down = async (): Promise<never> => {
      throw new StoreUnavailableError('test', new Error('connection refused'));
    };
    const warned: string[] = [];
    const broken = new CaptureService({ jobs: stores.jobs, tokens: { ...stores.tokens, isLive: down } }, {
      ingest: async () => ({ id: 'x' }), publish: () => undefined, carry: async () => ({ annotations: 0, detached: 0, notCarried: 0 }),
    }, { info: () => undefined, warn: (_o, msg) => warned.push(msg) }, { leaseMs: 60_000 });
    try {
      const socket = new RecordingSocket();
      const h = broken.attach(token, socket);
      h.onMessage(writeRunnerMessage({ type: 'hello', name: 'cpu-1', capabilities: caps, agent: 'test' }));
      await h.handled();
      expect(socket.closed).toBe(CloseCode.serverError);
      expect(socket.sent).toEqual([]);
      expect(await broken.runners()).toEqual([]);
      expect(warned).toEqual(['runner frame not handled']);
      // The job is queued all the same, for a later lease.
      expect((await broken.request('room', request, 'owner')).status).toBe('queued');
    } finally {
      await broken.close();
    }
  });
});
