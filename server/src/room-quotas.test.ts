import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ErrorCode } from './errors';
import { RoomCreationQuota } from './room-quotas';
import { testApp, TINY_HLO, type TestApp } from './testing';

/** The error code `fn` throws, or `ok`. */
function outcome(fn: () => void): string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
}

describe('RoomCreationQuota', () => {
  it('limits each address per minute and the whole server per hour', () => {
    let now = 0;
    const quota = new RoomCreationQuota({ roomsPerMinute: 2, roomsPerHour: 3, maxRooms: 100 }, () => 0, () => now);
    expect([outcome(() => quota.take('a')), outcome(() => quota.take('a')), outcome(() => quota.take('a'))]).toEqual(['ok', 'ok', ErrorCode.rateLimited]);
    // Another address still has its minute, but the server has one room left for the hour.
    expect([outcome(() => quota.take('b')), outcome(() => quota.take('c'))]).toEqual(['ok', ErrorCode.rateLimited]);
    now = 20 * 60 * 1000;
    expect(outcome(() => quota.take('c'))).toBe('ok');
  });

  it('refuses with quota_exceeded once the server holds maxRooms', () => {
    let rooms = 4;
    const quota = new RoomCreationQuota({ roomsPerMinute: 100, roomsPerHour: 100, maxRooms: 5 }, () => rooms);
    expect(outcome(() => quota.take('a'))).toBe('ok');
    rooms = 5;
    expect(outcome(() => quota.take('a'))).toBe(ErrorCode.quotaExceeded);
  });
});

describe('document quotas of a room', () => {
  let t: TestApp;
  afterEach(() => t.close());

  const upload = async (roomId: string, token: string, title: string, text: string) => {
    const res = await t.call('POST', `/api/rooms/${roomId}/documents`, { token, json: { title, text } });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };

  it('refuses one document more than documentsPerRoom, naming the quota; other rooms are not affected', async () => {
    t = testApp({ documentsPerRoom: 2 });
    const room = await t.room();
    const other = await t.room();
    expect((await upload(room.id, room.tokens.owner, 'a', TINY_HLO)).status).toBe(201);
    expect((await upload(room.id, room.tokens.annotator, 'b', TINY_HLO)).status).toBe(201);
    const refused = await upload(room.id, room.tokens.owner, 'c', TINY_HLO);
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'quota_exceeded' } } });
    expect(refused.body.error?.message).toMatch(/limit of 2 documents/);
    expect((await upload(other.id, other.tokens.owner, 'a', TINY_HLO)).status).toBe(201);
    expect(t.deps.store.documents.list(room.id)).toHaveLength(2);
  });

  it('refuses a dump that would take the room past roomDocumentBytes', async () => {
    t = testApp({ roomDocumentBytes: 2048 });
    const room = await t.room();
    expect((await upload(room.id, room.tokens.owner, 'a', TINY_HLO + ' '.repeat(1500))).status).toBe(201);
    const refused = await upload(room.id, room.tokens.owner, 'b', TINY_HLO + ' '.repeat(600));
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'quota_exceeded' } } });
    expect(refused.body.error?.message).toMatch(/at most 2048 bytes/);
    expect((await upload(room.id, room.tokens.owner, 'c', TINY_HLO)).status).toBe(201);
  });
});
