import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Annotation, CaptureEntry, RoomExport } from '@seam/shared/model';
import { readServerMessage, writeRunnerMessage, type ServerToAgent } from '@seam/shared/protocol';
import { openDatabase, RunnerTokens, runTokenCli, startServer, SyncMode, type RunningServer } from '@seam/server';
import { addDocument, connectClient, createRoom, waitFor, type CreatedRoom } from '../helpers';
import { startTarget, TargetKind, type SyncTarget } from '../helpers/scale/target';

/**
 * The smaller holes of a server on a network, tried as an attacker would against a real server on
 * port 0 with SQLite on disk: writes into a locked room, hostile text in exports, missing security
 * headers, token-protected bodies in shared caches, runner tokens acting for other runners, and
 * unbounded runner capabilities.
 */

const WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
const DUMP = 'HloModule m\n\nENTRY main {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n';
const CAPTURE = { program: 'import jax\n\n\ndef f(x):\n    return -x\n', entry: 'f', args: [{ shape: [4], dtype: 'float32' }], capture: ['jaxpr'] };
const CAPS = { platform: 'cpu', deviceKind: 'cpu', deviceCount: 1, jax: '0.10.2', jaxlib: '0.10.2', python: '3.11' };

let server: RunningServer;
let dataDir: string;
let db: ReturnType<typeof openDatabase>;
let tokens: RunnerTokens;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'seam-holes-'));
  server = await startServer({ port: 0, host: '127.0.0.1', dataDir, runner: false, webDir: WEB_DIR, log: pino({ level: 'silent' }) });
  db = openDatabase(dataDir, SyncMode.normal);
  tokens = new RunnerTokens(db);
});
afterAll(async () => {
  db?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `fetch` against the server at `at` with a room token as Bearer. */
function callOn(at: { readonly url: string }, method: string, path: string, token?: string, body?: unknown, type = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = type;
  return fetch(`${at.url}${path}`, { method, headers, body: body === undefined ? undefined : type === 'application/json' ? JSON.stringify(body) : String(body) });
}

/** `callOn` the file's server. */
const call = (...args: Parameters<typeof callOn> extends [unknown, ...infer R] ? R : never) => callOn(server, ...args);

async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

/**
 * Sets room settings as the owner does, through the room document on `at`, and waits until the
 * server at `seenAt` (by default the same) holds them.
 */
async function setSettings(room: CreatedRoom, settings: Record<string, boolean>, at: { readonly url: string } = server, seenAt = at): Promise<void> {
  const owner = connectClient(at, room.id, room.tokens.owner);
  try {
    await owner.synced();
    owner.doc.transact(() => {
      for (const [k, v] of Object.entries(settings)) owner.doc.getMap('settings').set(k, v);
    });
    await waitFor(async () => {
      const info = (await (await callOn(seenAt, 'GET', `/api/rooms/${room.id}`, room.tokens.viewer)).json()) as { settings?: Record<string, unknown> };
      return Object.entries(settings).every(([k, v]) => info.settings?.[k] === v);
    }, 'the server to hold the settings');
  } finally {
    owner.destroy();
  }
}

/**
 * On both targets: in scaled mode the owner locks the room and the room's state is written through
 * instance 0, and the annotator's writes go through instance 1, which must refuse them from the
 * lock it learnt over the bus or the shared log.
 */
describe.each(Object.values(TargetKind))('a locked room refuses every REST write of an annotator, with one named error (%s)', (kind) => {
  let t: SyncTarget;
  let room: CreatedRoom;
  let docId: string;
  let annotation: Annotation;
  let job: CaptureEntry;

  /** The owner's instance, and the annotator's. */
  const owner = () => t.at(0);
  const annotator = () => t.at(1);

  beforeAll(async () => {
    t = await startTarget(kind);
    room = await createRoom(t, 'locked');
    docId = await addDocument(owner(), room.id, room.tokens.owner, 'm.hlo', DUMP);
    annotation = (await (await callOn(owner(), 'POST', `/api/rooms/${room.id}/annotations`, room.tokens.annotator, { docId, from: 0, to: 8, kind: 'note', body: 'before the lock' })).json()) as Annotation;
    job = ((await (await callOn(owner(), 'POST', `/api/rooms/${room.id}/captures`, room.tokens.owner, CAPTURE)).json()) as { job: CaptureEntry }).job;
    await setSettings(room, { allowAnnotatorCapture: true, locked: true }, owner(), annotator());
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['upload a dump as JSON', 'POST', 'documents', { title: 'sneaked', text: DUMP }, 'application/json'],
    ['upload a dump as text', 'POST', 'documents?title=sneaked', DUMP, 'text/plain'],
    ['annotate', 'POST', 'annotations', { docId: 'DOC', from: 0, to: 4, kind: 'note', body: 'in the lock' }, 'application/json'],
    ['reply', 'POST', 'annotations/AID/replies', { body: 'in the lock' }, 'application/json'],
    ['edit an annotation', 'PATCH', 'annotations/AID', { body: 'rewritten' }, 'application/json'],
    ['resolve an annotation', 'PATCH', 'annotations/AID', { resolved: true }, 'application/json'],
    ['delete an annotation', 'DELETE', 'annotations/AID', undefined, 'application/json'],
    ['request a capture', 'POST', 'captures', CAPTURE, 'application/json'],
    ['cancel a capture', 'DELETE', 'captures/JOB', undefined, 'application/json'],
  ])('an annotator may not %s', async (_what, method, path, body, type) => {
    const fill = (s: string) => s.replace('AID', annotation.id).replace('JOB', job.id);
    const json = typeof body === 'object' ? JSON.parse(fill(JSON.stringify(body)).replace('DOC', docId)) as unknown : body;
    const res = await callOn(annotator(), method, `/api/rooms/${room.id}/${fill(path)}`, room.tokens.annotator, json, type);
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('room_locked');
  });

  it('left everything as it was, and the owner may still write', async () => {
    const info = (await (await callOn(owner(), 'GET', `/api/rooms/${room.id}`, room.tokens.viewer)).json()) as { documents: unknown[] };
    expect(info.documents).toHaveLength(1);
    const listed = (await (await callOn(owner(), 'GET', `/api/rooms/${room.id}/annotations`, room.tokens.viewer)).json()) as { annotations: Annotation[] };
    expect(listed.annotations.map((a) => [a.id, a.body, a.resolved, a.replies.length])).toEqual([[annotation.id, 'before the lock', false, 0]]);
    const captures = (await (await callOn(owner(), 'GET', `/api/rooms/${room.id}/captures`, room.tokens.viewer)).json()) as { jobs: CaptureEntry[] };
    expect(captures.jobs.map((j) => [j.id, j.status])).toEqual([[job.id, 'queued']]);
    expect((await callOn(owner(), 'POST', `/api/rooms/${room.id}/documents`, room.tokens.owner, { title: 'owner', text: DUMP })).status).toBe(201);
    expect((await callOn(owner(), 'POST', `/api/rooms/${room.id}/annotations`, room.tokens.owner, { docId, from: 0, to: 8, kind: 'note', body: 'owner' })).status).toBe(201);
    expect((await callOn(owner(), 'DELETE', `/api/rooms/${room.id}/captures/${job.id}`, room.tokens.owner)).status).toBe(200);
  });
});

describe('exports carry hostile text as inert text', () => {
  it('writes no tag, no dangerous link and no breakable fence, in Markdown or JSON', async () => {
    const room = await createRoom(server, '<img src=x onerror=alert(1)>Lab');
    const dump = 'x = ````not closed\n<script>alert(1)</script>\n';
    const docId = await addDocument(server, room.id, room.tokens.owner, '[doc](javascript:alert(1))', dump);
    const a = (await (await call('POST', `/api/rooms/${room.id}/annotations`, room.tokens.annotator, {
      docId, from: 0, to: dump.length - 1, kind: 'note', instruction: '`</code><script>x</script>',
      body: '<script>alert(1)</script>\n[click](javascript:alert(1))\n![i](data:text/html,<b>)\n<vbscript:msgbox>', author: { name: '<svg onload=alert(1)>' },
    })).json()) as Annotation;
    await call('POST', `/api/rooms/${room.id}/annotations/${a.id}/replies`, room.tokens.owner, { body: '[x]: javascript:alert(1)\n<a href="javascript:alert(1)">', author: { name: '](vbscript:x)' } });

    const md = await (await call('GET', `/api/rooms/${room.id}/export.md`, room.tokens.viewer)).text();
    const [before, code, after] = md.split(/^`{5}$/m);
    expect(code).toBe(`\n${dump.slice(0, -1)}\n`);
    for (const outside of [before!, after!]) {
      const withoutSpans = outside.replace(/``[^`]*`[^`]*``/g, '');
      expect(withoutSpans).not.toMatch(/<|(^|[^\\])[[\]]/m);
    }
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;Lab');
    expect(md).toContain('> &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(md).toContain('\\[click\\](javascript:alert(1))');
    // The instruction stays dump text inside a code span its backtick cannot close.
    expect(md).toContain('### **note** · `` `</code><script>x</script> `` · open');

    const res = await call('GET', `/api/rooms/${room.id}/export.json`, room.tokens.viewer);
    const json = await res.text();
    expect(json).not.toMatch(/[<>&]/);
    const e = JSON.parse(json) as RoomExport;
    expect(e.room.title).toBe('<img src=x onerror=alert(1)>Lab');
    expect(e.annotations[0]?.replies[0]?.body).toBe('[x]: javascript:alert(1)\n<a href="javascript:alert(1)">');
  });
});

/** Headers of a refused WebSocket upgrade to `path`. */
function upgradeRefusal(path: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('upgrade', () => reject(new Error(`${path} was upgraded`)));
    req.on('error', reject);
    req.end();
  });
}

function expectSecurityHeaders(get: (name: string) => string | null | undefined, what: string): void {
  const csp = get('content-security-policy') ?? '';
  for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'", "img-src 'self' data:", "connect-src 'self'"]) {
    expect(csp, `${what}: ${directive}`).toContain(directive);
  }
  expect(csp, what).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/);
  expect(get('x-content-type-options'), what).toBe('nosniff');
  expect(get('referrer-policy'), what).toBe('no-referrer');
  expect(get('x-frame-options'), what).toBe('DENY');
  expect(get('cross-origin-opener-policy'), what).toBe('same-origin-allow-popups');
}

describe('every response carries the security headers', () => {
  it.each([
    ['the web app', 'GET', '/', 200],
    ['a room link', 'GET', '/r/abc', 200],
    ['the 404 page', 'GET', '/no/such/page', 404],
    ['an unknown API path', 'GET', '/api/nope', 404],
    ['a refused API call', 'GET', '/api/rooms/nope', 401],
    ['a malformed API call', 'POST', '/api/rooms', 400],
    ['/healthz', 'GET', '/healthz', 200],
    ['/metrics', 'GET', '/metrics', 200],
  ])('%s', async (what, method, path, status) => {
    const res = await fetch(`${server.url}${path}`, method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: '{' } : { method });
    expect(res.status).toBe(status);
    expectSecurityHeaders((n) => res.headers.get(n), what);
  });

  it('a built asset', async () => {
    const asset = readdirSync(join(WEB_DIR, 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await fetch(`${server.url}/assets/${asset}`);
    expect(res.status).toBe(200);
    expectSecurityHeaders((n) => res.headers.get(n), asset);
  });

  it('allows exactly the inline scripts of the built index.html, by hash', async () => {
    const res = await fetch(`${server.url}/`);
    const html = await res.text();
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
    expect(inline.length).toBeGreaterThan(0);
    const scriptSrc = /script-src ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')![1]!.split(' ');
    expect(scriptSrc).toEqual(["'self'", ...inline]);
    expect(html).toBe(readFileSync(join(WEB_DIR, 'index.html'), 'utf8'));
  });

  it.each([['a sync path that does not exist', '/nope', 404], ['the runner socket without a token', '/runner', 401]])('a refused upgrade: %s', async (what, path, status) => {
    const refusal = await upgradeRefusal(path);
    expect(refusal.status).toBe(status);
    expectSecurityHeaders((n) => refusal.headers[n] as string | undefined, what);
  });
});

describe('token-protected answers are never cached publicly', () => {
  it('marks dump bodies private and varying by token, and other API answers no-store', async () => {
    const room = await createRoom(server, 'cache');
    const docId = await addDocument(server, room.id, room.tokens.owner, 'm.hlo', DUMP);
    for (const part of ['text', 'analysis', 'analysis?part=views', 'analysis?part=keys']) {
      const res = await call('GET', `/api/rooms/${room.id}/documents/${docId}/${part}`, room.tokens.viewer);
      expect(res.status, part).toBe(200);
      expect(res.headers.get('cache-control'), part).toBe('private, max-age=31536000, immutable');
      expect(res.headers.get('vary'), part).toMatch(/\bAuthorization\b/);
      const again = await fetch(`${server.url}/api/rooms/${room.id}/documents/${docId}/${part}`, { headers: { authorization: `Bearer ${room.tokens.viewer}`, 'if-none-match': res.headers.get('etag')! } });
      expect(again.status, part).toBe(304);
      expect(again.headers.get('cache-control'), part).toMatch(/^private\b/);
    }
    for (const path of ['', '/annotations', '/captures', '/runners', '/export.md', '/export.json']) {
      const res = await call('GET', `/api/rooms/${room.id}${path}`, room.tokens.viewer);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});

/** A runner socket speaking the protocol by hand: the frames it got and how it was closed. */
class HandRunner {
  readonly frames: ServerToAgent[] = [];
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  constructor(token: string) {
    this.ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/runner`, { headers: { authorization: `Bearer ${token}` } });
    this.ws.on('message', (d) => {
      const m = readServerMessage(d.toString());
      if (m) this.frames.push(m);
    });
    this.closed = new Promise((resolve) => this.ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }
  async hello(name: string, capabilities: object = CAPS): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) await new Promise((r) => this.ws.once('open', r));
    this.ws.send(JSON.stringify({ type: 'hello', name, capabilities, agent: 'attacker' }));
  }
  send(msg: Parameters<typeof writeRunnerMessage>[0]): void {
    this.ws.send(writeRunnerMessage(msg));
  }
  /** Sends a heartbeat for a job nobody holds and waits for its `cancel`: every frame before it has been handled. */
  async settle(): Promise<void> {
    const marker = `cap_marker_${this.frames.length}`;
    this.send({ type: 'heartbeat', jobs: [{ jobId: marker, attempt: 1 }] });
    await waitFor(() => this.frames.some((f) => f.type === 'cancel' && f.jobId === marker), 'the server to answer the heartbeat');
  }
}

describe('runner tokens act only for the runner name they were minted for', () => {
  let room: CreatedRoom;
  beforeAll(async () => {
    room = await createRoom(server, 'runners');
  });

  it('refuses a token registering as another runner, or as local', async () => {
    const { token } = tokens.create('cpu-a');
    tokens.create('cpu-b');
    for (const name of ['cpu-b', 'local']) {
      const r = new HandRunner(token);
      await r.hello(name);
      expect(await r.closed).toEqual({ code: 4001, reason: 'unauthorized' });
      expect(r.frames).toEqual([{ type: 'error', code: 'unauthorized', message: expect.stringMatching(name === 'local' ? /reserved for the server's own local runner/ : /bound to the runner name "cpu-a"/) }]);
    }
    const runners = (await (await call('GET', `/api/rooms/${room.id}/runners`, room.tokens.viewer)).json()) as { runners: unknown[] };
    expect(runners.runners).toEqual([]);
  });

  it('mints no operator token for local, while the server\'s own token registers as local', async () => {
    expect(runTokenCli(['create', 'local', '--data', dataDir], {})).toBe(2);
    expect(tokens.list().filter((t) => t.name === 'local')).toEqual([]);
    const own = new HandRunner(server.createRunnerToken('local'));
    await own.hello('local');
    await waitFor(() => own.frames.some((f) => f.type === 'welcome'), 'the local runner to be welcomed');
    own.ws.close();
    await own.closed;
  });

  it('leases a job aimed at a name only to that name\'s token, and refuses another token\'s result', async () => {
    const aToken = tokens.create('gpu-a').token;
    const a = new HandRunner(aToken);
    await a.hello('gpu-a');
    a.send({ type: 'ready' });
    await a.settle();
    const { job } = (await (await call('POST', `/api/rooms/${room.id}/captures`, room.tokens.owner, { ...CAPTURE, runner: 'gpu-b' })).json()) as { job: CaptureEntry };
    await a.settle();
    expect(a.frames.some((f) => f.type === 'job')).toBe(false);

    const bToken = tokens.create('gpu-b').token;
    const b = new HandRunner(bToken);
    await b.hello('gpu-b');
    b.send({ type: 'ready' });
    await waitFor(() => b.frames.some((f) => f.type === 'job' && f.jobId === job.id), 'gpu-b to get its job');
    expect(a.frames.some((f) => f.type === 'job')).toBe(false);

    const result = { ok: true, provenance: { runner: 'x' }, artifacts: [{ name: 'jaxpr', kind: 'jaxpr', title: 'forged', text: '{ lambda ; . let  in () }\n' }] };
    const forged = await fetch(`${server.url}/api/runner/jobs/${job.id}/attempts/1/result`, {
      method: 'POST', headers: { authorization: `Bearer ${aToken}`, 'content-type': 'application/json' }, body: JSON.stringify(result),
    });
    expect(forged.status).toBe(403);
    expect(await errorCode(forged)).toBe('wrong_runner');
    const captures = (await (await call('GET', `/api/rooms/${room.id}/captures/${job.id}`, room.tokens.viewer)).json()) as { job: CaptureEntry };
    expect(captures.job).toMatchObject({ status: 'running', runningOn: 'gpu-b', documents: [] });

    const real = await fetch(`${server.url}/api/runner/jobs/${job.id}/attempts/1/result`, {
      method: 'POST', headers: { authorization: `Bearer ${bToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...result, artifacts: [{ ...result.artifacts[0], title: 'real' }] }),
    });
    expect(real.status).toBe(200);
    expect(((await real.json()) as { applied: boolean }).applied).toBe(true);
    a.ws.close();
    b.ws.close();
    await Promise.all([a.closed, b.closed]);
  });

  it('refuses capability strings, device counts and lists past their bounds, naming the field', async () => {
    const { token } = tokens.create('bounded');
    const cases: [object, RegExp][] = [
      [{ ...CAPS, deviceKind: 'x'.repeat(100_000) }, /capabilities\.deviceKind is longer than 128 characters/],
      [{ ...CAPS, platform: 'p'.repeat(129) }, /capabilities\.platform is longer than 128 characters/],
      [{ ...CAPS, deviceCount: 1e12 }, /capabilities\.deviceCount must be an integer from 0 to 4096/],
    ];
    for (const [caps, message] of cases) {
      const r = new HandRunner(token);
      await r.hello('bounded', caps);
      expect(await r.closed).toEqual({ code: 4400, reason: 'malformed-message' });
      expect(r.frames).toEqual([{ type: 'error', code: 'malformed-message', message: expect.stringMatching(message) }]);
    }
    const flood = new HandRunner(token);
    await flood.hello('bounded');
    flood.send({ type: 'heartbeat', jobs: Array.from({ length: 10_000 }, (_, i) => ({ jobId: `cap_${i}`, attempt: 1 })) });
    expect(await flood.closed).toEqual({ code: 4400, reason: 'malformed-message' });
    expect(flood.frames.at(-1)).toMatchObject({ type: 'error', message: 'a heartbeat may name at most 64 jobs' });
  });
});
