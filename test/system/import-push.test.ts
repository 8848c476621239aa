import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seam, startSeam } from '../../server/src/cli/seam-process';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers';
import { filesUnder, roomDocuments, stagedFiles, writeJaxDump } from '../helpers/import-kit';

let dir: string;
let dump: string;
let dumpFiles: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'seam-push-'));
  dump = join(dir, 'dump');
  dumpFiles = writeJaxDump(dump);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The room's text of a document, as a viewer reads it. */
const textOf = async (server: TestServer, room: CreatedRoom, id: string) =>
  (await fetch(`${server.url}/api/rooms/${room.id}/documents/${id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } })).text();

describe('seam push', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SEAM_DOCUMENTS_PER_ROOM: '1000' } });
  });
  afterAll(() => server?.close());

  it('pushes a real dump folder grouped by module, never prints the token, and adds nothing the second time', async () => {
    const room = await createRoom(server, 'push');
    const first = await seam('push', room.links.annotator, dump);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^pushing \d+ files \([\d.]+ MB\) to http:\/\/[^ ]+\/r\/[\w-]+$/m);
    expect(first.stdout).toMatch(/\d+\/\d+ files, [\d.]+ MB of [\d.]+ MB, [\d.]+ MB\/s/);
    expect(first.stdout).toMatch(/^ {2}module \d{4} jit_f: \d+ documents$/m);
    expect(first.stdout).toMatch(/skipped \d+ files, a binary protobuf/);
    const added = Number(/^added (\d+) documents in \d+ groups$/m.exec(first.stdout)?.[1]);
    expect(added).toBeGreaterThan(20);
    for (const out of [first.stdout, first.stderr]) expect(out).not.toContain(room.tokens.annotator);
    const docs = await roomDocuments(server, room);
    expect(docs.length).toBe(added);
    const opt = docs.find((d) => d.kind === 'hlo-opt' && d.module?.name === 'jit_f')!;
    expect(opt.module!.path).toMatch(/^dump\/xla\/module_\d{4}\.jit_f\.cpu_after_optimizations\.txt$/);

    const again = await seam('push', room.links.annotator, dump);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`nothing new: the room holds all ${added} files already`);
    expect(again.stdout).toMatch(new RegExp(`^${added} of ${added} files were on the server already; not sent again$`, 'm'));
    expect((await roomDocuments(server, room)).length).toBe(added);
    expect(dumpFiles.length).toBeGreaterThan(added);
  });

  it('refuses a viewer link, a link without a token and an unreachable server, by name, without the token', async () => {
    const room = await createRoom(server, 'refused');
    const viewer = await seam('push', room.links.viewer, dump);
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toMatch(/refused the push: forbidden/);
    const bare = await seam('push', room.links.annotator.replace(/#token=.*/, ''), dump);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/carries no token/);
    const gone = await seam('push', room.links.annotator.replace(/:\d+\//, ':9/'), dump);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/run the same command again to resume/);
    for (const out of [viewer.stderr, gone.stderr, viewer.stdout, gone.stdout]) expect(out).not.toContain(room.tokens.annotator);
    expect(await roomDocuments(server, room)).toEqual([]);
  });

  it('--watch pushes a file written later once it has been quiet, whole', async () => {
    const room = await createRoom(server, 'watch');
    const folder = join(dir, 'watched');
    mkdirSync(folder);
    writeFileSync(join(folder, 'first.txt'), 'the first note\n');
    const watch = startSeam('push', room.links.annotator, folder, '--watch', '--quiet', '0.5');
    await watch.line(/^watching for new and changed files/);
    const half = 'HloModule jit_later\n\nENTRY main {\n';
    writeFileSync(join(folder, 'module_0007.jit_later.before_optimizations.txt'), half);
    appendFileSync(join(folder, 'module_0007.jit_later.before_optimizations.txt'), '  ROOT p = f32[8] parameter(0)\n}\n');
    await watch.line(/^ {2}module 0007 jit_later: 1 documents$/);
    const later = (await roomDocuments(server, room)).find((d) => d.module?.name === 'jit_later')!;
    expect(later.kind).toBe('hlo');
    expect(await textOf(server, room, later.id)).toBe(`${half}  ROOT p = f32[8] parameter(0)\n}\n`);
    watch.child.kill('SIGINT');
    const end = await watch.done;
    expect(end.code).toBe(0);
    expect((await roomDocuments(server, room)).map((d) => d.title).sort()).toEqual(['watched/first.txt', 'watched/module_0007.jit_later.before_optimizations.txt']);
  });
});

describe('seam push, interrupted', () => {
  it('resumes after the server was killed mid-way, sending only what it lacks', async () => {
    const data = mkdtempSync(join(tmpdir(), 'seam-push-data-'));
    const folder = join(dir, 'big');
    mkdirSync(folder);
    const line = 'the value fusion.3 spills to HBM; '.repeat(30);
    for (let i = 0; i < 60; i++) writeFileSync(join(folder, `note-${String(i).padStart(2, '0')}.txt`), `${i}\n${`${line}\n`.repeat(260)}`);
    const env = { SEAM_DOCUMENTS_PER_ROOM: '1000', SEAM_ROOMS_PER_MIN: '100' };
    let server = await startTestServer({ child: true, dataDir: data, env });
    try {
      const room = await createRoom(server, 'resume');
      const push = startSeam('push', room.links.annotator, folder);
      await push.line(/^\d+\/60 files/);
      await server.kill!('SIGKILL');
      const broken = await push.done;
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/run the same command again to resume/);
      expect(broken.stderr).not.toContain(room.tokens.annotator);

      server = await startTestServer({ child: true, dataDir: data, env });
      expect(await roomDocuments(server, room)).toEqual([]);
      const staged = stagedFiles(data, room.id).filter((f) => /^[0-9a-f]{64}$/.test(f)).length;
      expect(staged).toBeGreaterThan(0);
      const link = room.links.annotator.replace(/:\d+\//, `:${server.port}/`);
      const resumed = await seam('push', link, folder);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toMatch(new RegExp(`^${staged} of 60 files were on the server already; not sent again$`, 'm'));
      expect(resumed.stdout).toMatch(/^added 60 documents/m);
      const docs = await roomDocuments(server, room);
      expect(docs.map((d) => d.title).sort()).toEqual(filesUnder(folder).map((f) => `big/${f}`));
      expect(stagedFiles(data, room.id).filter((f) => /^[0-9a-f]{64}$/.test(f))).toEqual([]);
    } finally {
      await server.close();
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
