import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError, defaultRoomCreation, Invitations, isLoopbackHost, loadConfig, openDatabase, resolveConfig, roomCreationProblem, startServer, SyncMode,
} from '@seam/server';
import { startTestServer, type TestServer } from '../helpers/server';

const OPERATOR = 'op_9f3c1e7a5b2d4c6e8a0b1d3f5e7c9a2b4d6f8e0a';
const DAY = 86_400_000;

describe('the room-creation policy is a function of HOST', () => {
  it.each([
    ['127.0.0.1', true], ['127.4.5.6', true], ['::1', true], ['[::1]', true], ['localhost', true], ['LocalHost', true], ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false], ['::', false], ['192.168.1.20', false], ['10.0.0.5', false], ['seam.example.org', false], ['::ffff:10.0.0.5', false], ['127.0.0.1.evil.example', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    expect(defaultRoomCreation(host)).toBe(loopback ? 'open' : 'invite');
    expect(roomCreationProblem('invite', host)).toBeNull();
    expect(roomCreationProblem('open', host) === null).toBe(loopback);
  });

  it('defaults to invite off loopback and to open on it, as loadConfig reads the environment', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).roomCreation).toBe('invite');
    expect(loadConfig({ HOST: '::' }).roomCreation).toBe('invite');
    expect(loadConfig({}).roomCreation).toBe('open');
    expect(loadConfig({ HOST: 'localhost', SEAM_ROOM_CREATION: 'invite' }).roomCreation).toBe('invite');
  });

  it('refuses SEAM_ROOM_CREATION=open on a network address, and values it does not know', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.20']) {
      expect(() => loadConfig({ HOST, SEAM_ROOM_CREATION: 'open' })).toThrow(ConfigError);
      expect(() => loadConfig({ HOST, SEAM_ROOM_CREATION: 'OPEN' })).toThrow(/SEAM_ROOM_CREATION=open is refused on HOST=/);
    }
    expect(() => loadConfig({ SEAM_ROOM_CREATION: 'anyone' })).toThrow(/SEAM_ROOM_CREATION must be "open" or "invite", got "anyone"/);
    expect(() => resolveConfig({ host: '0.0.0.0', roomCreation: 'open' })).toThrow(ConfigError);
  });

  it('refuses an operator token short enough to guess', () => {
    expect(() => loadConfig({ SEAM_OPERATOR_TOKEN: 'hunter2' })).toThrow(/SEAM_OPERATOR_TOKEN must be at least 32 characters/);
    expect(loadConfig({ SEAM_OPERATOR_TOKEN: OPERATOR }).operatorToken).toBe(OPERATOR);
  });

  it('does not start a server told to be open on a network address: nothing is opened or bound', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'seam-policy-'));
    const dataDir = join(parent, 'data');
    try {
      await expect(startServer({ host: '0.0.0.0', port: 0, roomCreation: 'open', dataDir, runner: false })).rejects.toThrow(ConfigError);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('a server that requires invitations', () => {
  let server: TestServer;
  let invitations: Invitations;
  let db: ReturnType<typeof openDatabase>;

  beforeAll(async () => {
    server = await startTestServer({
      child: true, captureLog: true,
      env: { SEAM_ROOM_CREATION: 'invite', SEAM_OPERATOR_TOKEN: OPERATOR, SEAM_LOG_LEVEL: 'debug', SEAM_ROOMS_PER_MIN: '10000' },
    });
    // The operator's side: the invite command's own code, on the server's data directory.
    db = openDatabase(server.dataDir, SyncMode.normal);
    invitations = new Invitations(db);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
  });

  const create = (headers: Record<string, string> = {}, query = '') =>
    fetch(`${server.url}/api/rooms${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ title: 'Lab' }) });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  /** The status and, for a refusal, the error code of an answer. */
  const refusal = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code });
  const roomCount = () => (db.prepare('SELECT COUNT(*) AS n FROM rooms').get() as { n: number }).n;

  it('tells the web app so', async () => {
    expect(await (await fetch(`${server.url}/api/config`)).json()).toEqual({ roomCreation: 'invite' });
  });

  it('refuses without a credential, with a room token, with a made-up or mangled invitation', async () => {
    const before = roomCount();
    const good = invitations.create({ uses: 5 });
    expect(await refusal(await create())).toEqual({ status: 401, code: 'invitation_required' });
    expect(await refusal(await create({ authorization: 'Bearer' }))).toEqual({ status: 401, code: 'invitation_required' });
    for (const bad of ['inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `${good.secret}x`, good.secret.slice(4), 'srn_runner-token', `${OPERATOR.slice(0, -1)}`, `${good.secret} ${good.secret}`]) {
      expect(await refusal(await create(bearer(bad)))).toEqual({ status: 401, code: 'invitation_invalid' });
    }
    // The query string is no way in: it ends up in logs.
    expect(await refusal(await create({}, `?token=${good.secret}`))).toEqual({ status: 401, code: 'invitation_required' });
    expect(roomCount()).toBe(before);
    expect(invitations.list().find((i) => i.id === good.id)?.usesLeft).toBe(5);
  });

  it('refuses expired, used-up and revoked invitations with their named errors', async () => {
    const weekAgo = new Invitations(db, () => Date.now() - 7 * DAY).create({ uses: 3, expiresInMs: DAY });
    const spent = invitations.create({ uses: 1 });
    expect((await create(bearer(spent.secret))).status).toBe(201);
    const revoked = invitations.create({ uses: 3 });
    expect(invitations.revoke(revoked.id)).toBe(true);
    const before = roomCount();
    expect(await refusal(await create(bearer(weekAgo.secret)))).toEqual({ status: 403, code: 'invitation_expired' });
    expect(await refusal(await create(bearer(spent.secret)))).toEqual({ status: 403, code: 'invitation_used_up' });
    expect(await refusal(await create(bearer(revoked.secret)))).toEqual({ status: 403, code: 'invitation_revoked' });
    expect(roomCount()).toBe(before);
  });

  it('creates a room for a good invitation, making its bearer the owner', async () => {
    const inv = invitations.create({ uses: 2 });
    const res = await create(bearer(inv.secret));
    expect(res.status).toBe(201);
    const room = (await res.json()) as { id: string; tokens: { owner: string } };
    const info = await fetch(`${server.url}/api/rooms/${room.id}`, { headers: bearer(room.tokens.owner) });
    expect(await info.json()).toMatchObject({ id: room.id, role: 'owner' });
    expect(invitations.list().find((i) => i.id === inv.id)?.usesLeft).toBe(1);
  });

  it('spends a one-use invitation exactly once under 24 concurrent requests', async () => {
    const inv = invitations.create({ uses: 1 });
    const before = roomCount();
    const answers = await Promise.all(Array.from({ length: 24 }, async () => refusal(await create(bearer(inv.secret)))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 403 && a.code === 'invitation_used_up')).toHaveLength(23);
    expect(roomCount()).toBe(before + 1);
    expect(invitations.list().find((i) => i.id === inv.id)?.usesLeft).toBe(0);
  });

  it('lets the operator token create rooms without spending any invitation', async () => {
    const inv = invitations.create({ uses: 1 });
    const before = roomCount();
    for (let i = 0; i < 3; i++) expect((await create(bearer(OPERATOR))).status).toBe(201);
    expect(roomCount()).toBe(before + 3);
    expect(invitations.list().find((i) => i.id === inv.id)?.usesLeft).toBe(1);
  });

  it('never writes an invitation or the operator token to its log, even at debug level', async () => {
    const inv = invitations.create({ uses: 1 });
    expect((await create(bearer(inv.secret))).status).toBe(201);
    expect((await create(bearer(inv.secret))).status).toBe(403);
    await create({}, `?token=${inv.secret}&invite=${inv.secret}`);
    await create(bearer(OPERATOR));
    await create(bearer(`${OPERATOR}-wrong`));
    const log = server.log?.() ?? '';
    // The log is there and at debug level: it holds the request lines of the calls above.
    expect(log.match(/"path":"\/api\/rooms"/g)?.length ?? 0).toBeGreaterThanOrEqual(5);
    for (const secret of [inv.secret, inv.secret.slice(4), OPERATOR]) expect(log).not.toContain(secret);
  });
});
