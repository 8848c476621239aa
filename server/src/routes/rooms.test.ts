import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invitations } from '../auth/invitations';
import { testApp, type TestApp } from '../testing';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

describe('rooms API', () => {
  it('creates a room with three distinct tokens and openable links, storing only hashes', async () => {
    const res = await t.call('POST', '/api/rooms', { json: { title: '  Attention lab  ' } });
    expect(res.status).toBe(201);
    const room = (await res.json()) as { id: string; title: string; tokens: Record<string, string>; links: Record<string, string> };
    expect(room.title).toBe('Attention lab');
    expect(new Set(Object.values(room.tokens)).size).toBe(3);
    for (const role of ['owner', 'annotator', 'viewer']) {
      expect(room.tokens[role]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(room.links[role]).toBe(`https://seam.test/r/${room.id}#token=${room.tokens[role]}`);
    }
    const stored = t.deps.store.db.prepare('SELECT hash FROM tokens WHERE room_id = ?').all(room.id) as { hash: Buffer }[];
    expect(stored).toHaveLength(3);
    for (const { hash } of stored) expect(Object.values(room.tokens)).not.toContain(hash.toString('base64url'));
  });

  it.each([
    ['no title', { }],
    ['an empty title', { title: '   ' }],
    ['a title that is not a string', { title: 42 }],
    ['a title that is too long', { title: 'x'.repeat(201) }],
  ])('answers 400 for %s', async (_, json) => {
    const res = await t.call('POST', '/api/rooms', { json });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; message: string } }).error.code).toBe('bad_request');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await t.call('POST', '/api/rooms', { body: '{"title":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
  });

  it('answers 413 for a body over the request limit', async () => {
    const small = testApp({ requestBytes: 1024 });
    const res = await small.call('POST', '/api/rooms', { json: { title: 'x'.repeat(2000) } });
    small.close();
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'too_large' } });
  });

  it('describes a room to any of its tokens, with that token’s role', async () => {
    const room = await t.room('Lab');
    for (const role of ['owner', 'annotator', 'viewer'] as const) {
      const res = await t.call('GET', `/api/rooms/${room.id}`, { token: room.tokens[role] });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: room.id, title: 'Lab', role, documents: [], settings: { title: 'Lab', locked: false, allowAnnotatorCapture: false } });
    }
    const byQuery = await t.call('GET', `/api/rooms/${room.id}?token=${room.tokens.viewer}`);
    expect(byQuery.status).toBe(200);
  });

  it('gives the title the owner renamed the room to in the room document', async () => {
    const room = await t.room('Lab');
    t.deps.rooms.get(room.id).transact((doc) => doc.getMap('settings').set('title', 'Attention lab, week 2'));
    const res = await t.call('GET', `/api/rooms/${room.id}`, { token: room.tokens.viewer });
    expect(await res.json()).toMatchObject({ title: 'Attention lab, week 2', settings: { title: 'Attention lab, week 2' } });
  });

  it('answers 401 for no token, a wrong token, or another room’s token, without revealing the room', async () => {
    const room = await t.room();
    const other = await t.room();
    for (const token of [undefined, 'nope', other.tokens.owner]) {
      const res = await t.call('GET', `/api/rooms/${room.id}`, token ? { token } : {});
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    expect((await t.call('GET', '/api/rooms/does-not-exist', { token: room.tokens.owner })).status).toBe(401);
  });

  it('rotates a link for the owner only and invalidates the old token', async () => {
    const room = await t.room();
    expect((await t.call('POST', `/api/rooms/${room.id}/links/viewer/rotate`, { token: room.tokens.annotator })).status).toBe(403);
    expect((await t.call('POST', `/api/rooms/${room.id}/links/viewer/rotate`, { token: room.tokens.viewer })).status).toBe(403);
    expect((await t.call('POST', `/api/rooms/${room.id}/links/admin/rotate`, { token: room.tokens.owner })).status).toBe(400);
    const res = await t.call('POST', `/api/rooms/${room.id}/links/viewer/rotate`, { token: room.tokens.owner });
    expect(res.status).toBe(200);
    const { token, link } = (await res.json()) as { token: string; link: string };
    expect(link).toBe(`https://seam.test/r/${room.id}#token=${token}`);
    expect((await t.call('GET', `/api/rooms/${room.id}`, { token: room.tokens.viewer })).status).toBe(401);
    expect((await t.call('GET', `/api/rooms/${room.id}`, { token })).status).toBe(200);
  });

  it('answers JSON 404 for unknown API paths, and serves health and metrics', async () => {
    expect(await (await t.call('GET', '/api/nothing')).json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await t.call('GET', '/healthz')).status).toBe(200);
    await t.room();
    const metrics = await (await t.call('GET', '/metrics')).text();
    expect(metrics).toMatch(/^seam_loaded_rooms 1$/m);
    expect(metrics).toMatch(/^seam_persist_seconds_count \d+$/m);
  });
});

describe('room creation rate', () => {
  it('answers 429 once an address has used up its rooms for the minute', async () => {
    const limited = testApp({ roomsPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.call('POST', '/api/rooms', { json: { title: `r${i}` } })).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const res = await limited.call('POST', '/api/rooms', { json: { title: 'again' } });
      expect(await res.json()).toMatchObject({ error: { code: 'rate_limited' } });
    } finally {
      limited.close();
    }
  });
});

describe('who may create rooms', () => {
  const OPERATOR = 'operator-secret-of-at-least-32-characters';
  let inv: TestApp;
  beforeEach(() => {
    inv = testApp({}, { roomCreation: 'invite', operatorToken: OPERATOR });
  });
  afterEach(() => inv.close());
  const invitations = () => new Invitations(inv.deps.store.db);
  const roomCount = () => (inv.deps.store.db.prepare('SELECT COUNT(*) AS n FROM rooms').get() as { n: number }).n;
  const create = (token?: string) => inv.call('POST', '/api/rooms', { json: { title: 'Lab' }, ...(token ? { token } : {}) });

  it('says which policy holds at GET /api/config', async () => {
    expect(await (await inv.call('GET', '/api/config')).json()).toEqual({ roomCreation: 'invite' });
    expect(await (await t.call('GET', '/api/config')).json()).toEqual({ roomCreation: 'open' });
  });

  it('refuses a request without a credential, or with a room token, with a named error', async () => {
    const res = await create();
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'invitation_required' } });
    const bad = await create('not-an-invitation');
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { code: 'invitation_invalid' } });
    expect(roomCount()).toBe(0);
  });

  it('spends one use of an invitation per room, and only the header carries it', async () => {
    const { secret } = invitations().create({ uses: 2 });
    expect((await inv.call('POST', `/api/rooms?token=${secret}`, { json: { title: 'Lab' } })).status).toBe(401);
    expect((await create(secret)).status).toBe(201);
    expect((await create(secret)).status).toBe(201);
    const third = await create(secret);
    expect(third.status).toBe(403);
    expect(await third.json()).toMatchObject({ error: { code: 'invitation_used_up' } });
    expect(roomCount()).toBe(2);
  });

  it('does not spend a use on a request it refuses for its body', async () => {
    const { secret, id } = invitations().create();
    expect((await inv.call('POST', '/api/rooms', { json: { title: '' }, token: secret })).status).toBe(400);
    expect(invitations().list().find((i) => i.id === id)?.usesLeft).toBe(1);
  });

  it('refuses requests without a live invitation before they count against the creation quota', async () => {
    const small = testApp({ roomsPerMinute: 2 }, { roomCreation: 'invite' });
    try {
      const { secret } = new Invitations(small.deps.store.db).create({ uses: 3 });
      const post = (token?: string) => small.call('POST', '/api/rooms', { json: { title: 'Lab' }, ...(token ? { token } : {}) });
      const refused = [await post(), await post('inv_made_up'), await post(), await post('inv_made_up')];
      expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401]);
      expect([(await post(secret)).status, (await post(secret)).status, (await post(secret)).status]).toEqual([201, 201, 429]);
      expect(new Invitations(small.deps.store.db).list()[0]?.usesLeft).toBe(1);
    } finally {
      small.close();
    }
  });

  it('lets the operator token create rooms without spending invitations', async () => {
    for (let i = 0; i < 3; i++) expect((await create(OPERATOR)).status).toBe(201);
    expect((await create(`${OPERATOR}x`)).status).toBe(401);
  });

  it('ignores credentials when creation is open', async () => {
    const { secret, id } = new Invitations(t.deps.store.db).create();
    expect((await t.call('POST', '/api/rooms', { json: { title: 'Lab' }, token: secret })).status).toBe(201);
    expect(new Invitations(t.deps.store.db).list().find((i) => i.id === id)?.usesLeft).toBe(1);
  });
});
