import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, createRoom, startTestServer, waitFor, type CreatedRoom, type TestServer } from '../helpers';
import { archive, postImport, roomDocuments, stagedFiles, TYPES, type Member } from '../helpers/import-kit';

/** Small limits, so that every bound is passed with small bodies. */
const LIMITS = { SEAM_ROOMS_PER_MIN: '1000', SEAM_IMPORT_FILE_BYTES: String(1024 * 1024), SEAM_IMPORT_BYTES: String(4 * 1024 * 1024), SEAM_DOCUMENTS_PER_ROOM: '4' };

let server: TestServer;
let roomy: TestServer;
/** 64 MiB of zeros deflate to about 64 KiB: made before the servers start, because making them takes seconds. */
let bombs: { zip: Buffer; tarGz: Buffer };

beforeAll(async () => {
  // A pause of seconds between two requests (the client busy making an archive) lets the server
  // close a kept-alive connection the client has not yet seen closed, and its next request is reset.
  bombs = { zip: archive('zip', [{ name: 'bomb.txt', data: Buffer.alloc(64 * 1024 * 1024) }]), tarGz: archive('tar.gz', [{ name: 'bomb.txt', data: Buffer.alloc(64 * 1024 * 1024) }]) };
  server = await startTestServer({ env: LIMITS });
  roomy = await startTestServer({ env: { SEAM_ROOMS_PER_MIN: '1000' } });
});
afterAll(async () => {
  await server?.close();
  await roomy?.close();
});

const GOOD: Member[] = [
  { name: 'dump/module_0000.jit_f.before_optimizations.txt', data: 'HloModule jit_f\n\nENTRY main {\n  ROOT p = f32[8] parameter(0)\n}\n' },
  { name: 'dump/notes.txt', data: 'the softmax spills\n' },
];

/** Imports `body` into a fresh room of `s`; expects refusal with `status` and `code`, and that the room holds nothing and has nothing staged. */
async function refused(body: BodyInit | Buffer, type: string | undefined, status: number, code: string, s: TestServer = server): Promise<string> {
  const room = await createRoom(s, 'hostile');
  const { status: got, json } = await postImport(s, room, body, type);
  expect({ got, code: json.error?.code }, json.error?.message).toEqual({ got: status, code });
  expect(json.error?.message.length).toBeGreaterThan(10);
  expect(await roomDocuments(s, room)).toEqual([]);
  expect(stagedFiles(s.dataDir, room.id)).toEqual([]);
  return json.error!.message;
}

describe('an import refuses hostile folders and archives by name and stores nothing', () => {
  it('refuses names that leave the folder: .., absolute paths, drive letters, NUL, in zip, tar and multipart', async () => {
    for (const name of ['../evil.txt', 'a/../../evil.txt', '/etc/passwd', 'C:/evil.txt']) {
      await refused(archive('zip', [...GOOD, { name, data: 'x' }]), TYPES.zip, 400, 'unsafe_path');
      await refused(archive('tar', [...GOOD, { name, data: 'x' }]), TYPES.tar, 400, 'unsafe_path');
      const form = new FormData();
      form.append('file', new Blob(['x']), GOOD[0]!.name);
      form.append('file', new Blob(['x']), name);
      await refused(form, undefined, 400, 'unsafe_path');
    }
    const nul = JSON.stringify({ files: [{ path: 'a\u0000b.txt', sha256: '0'.repeat(64), bytes: 1 }] });
    await refused(nul, 'application/json', 400, 'unsafe_path');
  });

  it('refuses symbolic links, hard links and devices inside archives', async () => {
    expect(await refused(archive('zip', [...GOOD, { name: 'dump/passwd', symlink: '/etc/passwd' }]), TYPES.zip, 400, 'unsafe_path')).toMatch(/link/);
    expect(await refused(archive('tar', [...GOOD, { name: 'dump/passwd', symlink: '/etc/passwd' }]), TYPES.tar, 400, 'unsafe_path')).toMatch(/link/);
    expect(await refused(archive('tar.gz', [...GOOD, { name: 'dump/hard', hardlink: 'dump/notes.txt' }]), TYPES['tar.gz'], 400, 'unsafe_path')).toMatch(/link/);
    expect(await refused(archive('tar', [...GOOD, { name: 'dump/tty', device: true }]), TYPES.tar, 400, 'unsafe_path')).toMatch(/device/);
    expect(await refused(archive('zip', [...GOOD, { name: 'dump/tty', device: true }]), TYPES.zip, 400, 'unsafe_path')).toMatch(/device/);
  });

  it('refuses 10^4 files past SEAM_IMPORT_FILES', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ name: `d/f${i}.txt`, data: String(i) }));
    expect(await refused(archive('tar.gz', many), TYPES['tar.gz'], 413, 'too_many_files', roomy)).toMatch(/SEAM_IMPORT_FILES/);
  });

  it('refuses a member past SEAM_IMPORT_FILE_BYTES and an import past SEAM_IMPORT_BYTES, counted as they inflate', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 'a');
    expect(await refused(archive('tar.gz', [...GOOD, { name: 'dump/big.txt', data: big }]), TYPES['tar.gz'], 413, 'too_large')).toMatch(/SEAM_IMPORT_FILE_BYTES/);
    const quarter = Buffer.alloc(1000 * 1024, 'b');
    const five = Array.from({ length: 5 }, (_, i) => ({ name: `dump/q${i}.txt`, data: quarter }));
    expect(await refused(archive('zip', five), TYPES.zip, 413, 'too_large')).toMatch(/SEAM_IMPORT_BYTES/);
  });

  it('stops a zip bomb while inflating, whatever its headers claim', async () => {
    const { zip: bomb, tarGz: tarBomb } = bombs;
    expect(bomb.length).toBeLessThan(512 * 1024);
    // the same bomb with both headers claiming 100 bytes: inflating stops at the claim
    const lying = Buffer.from(bomb);
    const local = lying.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    lying.writeUInt32LE(100, local + 22);
    const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lying.writeUInt32LE(100, central + 24);
    await refused(bomb, TYPES.zip, 413, 'too_large');
    expect(await refused(lying, TYPES.zip, 400, 'bad_archive')).toMatch(/too many bytes|size/);
    await refused(tarBomb, TYPES['tar.gz'], 413, 'too_large');
  });

  it('refuses malformed and truncated archives and multipart bodies as bad_archive', async () => {
    const zip = archive('zip', GOOD);
    await refused(zip.subarray(0, zip.length - 30), TYPES.zip, 400, 'bad_archive');
    await refused('this is not a zip', TYPES.zip, 400, 'bad_archive');
    const tgz = archive('tar.gz', [...GOOD, { name: 'dump/more.txt', data: Buffer.alloc(200_000, 'c') }]);
    await refused(tgz.subarray(0, Math.floor(tgz.length / 2)), TYPES['tar.gz'], 400, 'bad_archive');
    await refused('not gzip at all', TYPES['tar.gz'], 400, 'bad_archive');
    await refused(Buffer.alloc(1024, 7), TYPES.tar, 400, 'bad_archive');
    await refused('--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nabc', 'multipart/form-data; boundary=x', 400, 'bad_archive');
    await refused('abc', 'multipart/form-data', 400, 'bad_archive');
    await refused('--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\n' + 'abc'.repeat(100_000), 'multipart/form-data; boundary=x', 400, 'bad_archive');
    await refused('abc', 'application/x-rar', 400, 'bad_request');
  });

  it('is all or nothing: good files before a refused member, or past the room quota, are not listed', async () => {
    await refused(archive('tar', [...GOOD, { name: 'dump/zz', symlink: 'x' }]), TYPES.tar, 400, 'unsafe_path');
    const five = Array.from({ length: 5 }, (_, i) => ({ name: `dump/n${i}.txt`, data: `note ${i}` }));
    expect(await refused(archive('zip', five), TYPES.zip, 409, 'quota_exceeded')).toMatch(/SEAM_DOCUMENTS_PER_ROOM/);
  });

  it('commits a manifest only of blobs staged for the room, each checked against its sha256', async () => {
    const room: CreatedRoom = await createRoom(server, 'manifest');
    const text = 'HloModule jit_g\n';
    const sha = createHash('sha256').update(text).digest('hex');
    const call = (method: string, path: string, body?: string, type = 'application/octet-stream') =>
      fetch(`${server.url}/api/rooms/${room.id}${path}`, { method, headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': type }, ...(body !== undefined ? { body } : {}) });
    const manifest = JSON.stringify({ files: [{ path: 'd/module_0000.jit_g.before_optimizations.txt', sha256: sha, bytes: text.length }] });
    expect((await (await call('POST', '/imports', manifest, 'application/json')).json()).error.code).toBe('missing_blob');
    const wrong = await call('PUT', `/blobs/${sha}`, `${text}tampered`);
    expect(wrong.status).toBe(400);
    expect((await call('HEAD', `/blobs/${sha}`)).status).toBe(404);
    expect((await call('PUT', `/blobs/${'x'.repeat(64)}`, text)).status).toBe(400);
    expect((await call('POST', '/imports', JSON.stringify({ files: [{ path: '../x', sha256: sha, bytes: 1 }] }), 'application/json')).status).toBe(400);
    expect((await call('PUT', `/blobs/${sha}`, text)).status).toBe(201);
    expect((await call('HEAD', `/blobs/${sha}`)).status).toBe(200);
    expect(stagedFiles(server.dataDir, room.id)).toEqual([sha]);
    const done = await call('POST', '/imports', manifest, 'application/json');
    expect(done.status).toBe(201);
    expect(stagedFiles(server.dataDir, room.id)).toEqual([]);
    // the room holds it now, so it need not be sent again
    expect((await call('HEAD', `/blobs/${sha}`)).status).toBe(200);
    expect(((await (await call('POST', '/imports', manifest, 'application/json')).json()) as { unchanged: number }).unchanged).toBe(1);
  });

  it('refuses an annotator in a locked room on every import path, and takes the owner\'s', async () => {
    const room = await createRoom(server, 'locked');
    const owner = connectClient(server, room.id, room.tokens.owner);
    try {
      await owner.synced();
      owner.doc.getMap('settings').set('locked', true);
      await waitFor(async () => {
        const info = (await (await fetch(`${server.url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).json()) as { settings?: { locked?: boolean } };
        return info.settings?.locked === true;
      }, 'the server to hold the lock');
    } finally {
      owner.destroy();
    }
    const tar = archive('tar', GOOD);
    expect((await postImport(server, room, tar, TYPES.tar)).json.error?.code).toBe('room_locked');
    const put = await fetch(`${server.url}/api/rooms/${room.id}/blobs/${createHash('sha256').update('x').digest('hex')}`, { method: 'PUT', headers: { authorization: `Bearer ${room.tokens.annotator}` }, body: 'x' });
    expect(put.status).toBe(403);
    expect(stagedFiles(server.dataDir, room.id)).toEqual([]);
    expect((await postImport(server, room, tar, TYPES.tar, room.tokens.owner)).status).toBe(201);
  });
});
