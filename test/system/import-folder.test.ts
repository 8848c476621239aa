import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportResult } from '@seam/shared/model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers';
import { archive, postImport, roomDocuments, stagedFiles, TYPES, writeJaxDump } from '../helpers/import-kit';

let server: TestServer;
let dir: string;
let files: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seam-import-dump-'));
  files = writeJaxDump(join(dir, 'dump'), { passes: true }).map((f) => `dump/${f}`);
  server = await startTestServer({ env: { SEAM_DOCUMENTS_PER_ROOM: '2000' } });
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A real dump folder as a browser sends a picked folder: one part per file, named by its relative path. */
function folderForm(): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([readFileSync(join(dir, f))]), f);
  return form;
}

/** What an import of the real dump must hold, whatever it came in as. */
async function expectRealDump(room: CreatedRoom, result: ImportResult): Promise<void> {
  ImportResult.parse(result);
  const f = result.groups.find((g) => / jit_f$/.test(g.label));
  expect(f?.label).toMatch(/^module \d{4} jit_f$/);
  const docs = new Map(result.documents.map((d) => [d.id, d]));
  const members = f!.documentIds.map((id) => docs.get(id)!);
  const layers = members.filter((d) => !d.module?.pass);
  expect(new Set(layers.map((d) => d.kind))).toEqual(new Set(['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'buffer-assignment', 'memory-report', 'text']));
  const passes = members.filter((d) => d.module?.pass);
  expect(passes.length).toBeGreaterThan(20);
  expect(passes.map((d) => d.module!.pass!.index)).toEqual([...passes.map((d) => d.module!.pass!.index)].sort((a, b) => a - b));
  expect(new Set(members.map((d) => d.module!.groupId)).size).toBe(1);
  expect(result.groups.some((g) => / jit_train_step$/.test(g.label))).toBe(true);
  // binaries are left out by name, with a reason
  const pb = result.skipped.filter((s) => s.path.endsWith('.pb'));
  expect(pb.length).toBeGreaterThan(4);
  expect(pb.every((s) => /protobuf/.test(s.reason))).toBe(true);
  expect(result.skipped.some((s) => s.path.endsWith('.o'))).toBe(true);
  expect(result.added).toBe(result.documents.length);
  expect(result.added + result.skipped.length).toBe(files.length);
  // the room lists every document with its module group, and serves each file's text as it was
  const listed = await roomDocuments(server, room);
  expect(listed.map((d) => d.id).sort()).toEqual(result.documents.map((d) => d.id).sort());
  const opt = listed.find((d) => d.kind === 'hlo-opt' && d.module?.name === 'jit_f' && !d.module.pass)!;
  expect(opt.module).toMatchObject({ groupId: f!.key.replace(/^module:/, ''), path: expect.stringMatching(/^dump\/xla\/module_\d{4}\.jit_f\.cpu_after_optimizations\.txt$/) });
  const text = await fetch(`${server.url}/api/rooms/${room.id}/documents/${opt.id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
  expect(await text.text()).toBe(readFileSync(join(dir, opt.module!.path), 'utf8'));
  expect(stagedFiles(server.dataDir, room.id)).toEqual([]);
}

describe('bringing a real JAX dump folder into a room', () => {
  it('takes a folder as multipart, one part per file named by its relative path, grouped by jit module', async () => {
    const room = await createRoom(server, 'multipart');
    const { status, json } = await postImport(server, room, folderForm(), undefined);
    expect(status).toBe(201);
    await expectRealDump(room, json);
  });

  it('takes the same folder as a zip, and a second import of it adds nothing and says so', async () => {
    const room = await createRoom(server, 'zip');
    const zip = archive('zip', files.map((f) => ({ name: f, data: readFileSync(join(dir, f)) })));
    const first = await postImport(server, room, zip, TYPES.zip);
    expect(first.status).toBe(201);
    await expectRealDump(room, first.json);
    const again = await postImport(server, room, zip, TYPES.zip);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ added: 0, documents: [], unchanged: first.json.added });
    expect((await roomDocuments(server, room)).length).toBe(first.json.added);
  });

  it('takes the same folder as a tar.gz made by tar, and groups it alike', async () => {
    const room = await createRoom(server, 'tar.gz');
    const tgz = execFileSync('tar', ['czf', '-', '-C', dir, 'dump'], { maxBuffer: 1 << 28 });
    const { status, json } = await postImport(server, room, tgz, TYPES['tar.gz']);
    expect(status).toBe(201);
    await expectRealDump(room, json);
  });

  it('takes a tar.gz packed from inside the folder (`tar -C dump .`, whose first entry is ./)', async () => {
    const room = await createRoom(server, 'tar.gz from inside');
    const tgz = execFileSync('tar', ['czf', '-', '-C', join(dir, 'dump'), '.'], { maxBuffer: 1 << 28 });
    const { status, json } = await postImport(server, room, tgz, TYPES['tar.gz']);
    expect(status).toBe(201);
    expect(json.added + json.skipped.length).toBe(files.length);
    expect(json.added).toBeGreaterThan(0);
  });

  it('tells a zip, a tar and a tar.gz sent as application/octet-stream by their first bytes', async () => {
    const members = files.filter((f) => /\.jit_f\.(before|cpu_after)_optimizations\.txt$/.test(f)).map((f) => ({ name: f, data: readFileSync(join(dir, f)) }));
    expect(members).toHaveLength(2);
    for (const format of ['zip', 'tar', 'tar.gz'] as const) {
      const room = await createRoom(server, `sniffed ${format}`);
      const { status, json } = await postImport(server, room, archive(format, members), 'application/octet-stream');
      expect({ format, status }).toEqual({ format, status: 201 });
      expect(json.documents.map((d) => d.kind).sort()).toEqual(['hlo', 'hlo-opt']);
    }
    const room = await createRoom(server, 'not an archive');
    const { status, json } = await postImport(server, room, 'HloModule jit_f\n', 'application/octet-stream');
    expect(status).toBe(400);
    expect(json.error?.code).toBe('bad_request');
  });

  it('joins files pushed later to the module group the room already holds', async () => {
    const room = await createRoom(server, 'later');
    const xla = files.filter((f) => f.startsWith('dump/xla/') && / jit_f|\.jit_f\./.test(f));
    const jax = files.filter((f) => f.startsWith('dump/jax/'));
    const first = await postImport(server, room, archive('tar', xla.map((f) => ({ name: f, data: readFileSync(join(dir, f)) }))), TYPES.tar);
    const later = await postImport(server, room, archive('tar', jax.map((f) => ({ name: f, data: readFileSync(join(dir, f)) }))), TYPES.tar);
    expect(later.status).toBe(201);
    const group = first.json.documents[0]!.module!.groupId;
    const stablehlo = later.json.documents.find((d) => /jit_f_compile\.mlir$/.test(d.title))!;
    expect(stablehlo.module?.groupId).toBe(group);
  });

  it('sends xplane traces through the trace ingest, and takes a stored trace out again when a later one is refused', async () => {
    const xplane = readFileSync(new URL('../fixtures/trace/mlp.xplane.pb', import.meta.url));
    const room = await createRoom(server, 'traces');
    const good = await postImport(server, room, archive('tar', [{ name: 'run/plugins/profile/1/host.xplane.pb', data: xplane }, ...files.slice(0, 3).map((f) => ({ name: f, data: readFileSync(join(dir, f)) }))]), TYPES.tar);
    expect(good.status).toBe(201);
    const trace = good.json.documents.find((d) => d.kind === 'trace')!;
    expect(trace.title).toBe('run/plugins/profile/1/host.xplane.pb');
    const summary = await fetch(`${server.url}/api/rooms/${room.id}/documents/${trace.id}/trace/summary`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    expect(summary.status).toBe(200);

    const other = await createRoom(server, 'a broken trace');
    const broken = await postImport(server, other, archive('tar', [
      { name: 'run/a.xplane.pb', data: xplane },
      { name: 'run/notes.txt', data: 'kept only if all is kept\n' },
      { name: 'run/z.xplane.pb', data: Buffer.from('not an xspace at all, just words') },
    ]), TYPES.tar);
    expect(broken.status).toBe(400);
    expect(broken.json.error?.message).toMatch(/trace/);
    expect(await roomDocuments(server, other)).toEqual([]);
    expect(stagedFiles(server.dataDir, other.id)).toEqual([]);
  });

  it('takes imports from editors only: a viewer is refused, a missing or foreign token is unauthorized, and nothing is stored', async () => {
    const room = await createRoom(server, 'roles');
    const other = await createRoom(server, 'other');
    const tar = archive('tar', [{ name: 'a/module_0000.jit_g.before_optimizations.txt', data: 'HloModule g\n' }]);
    expect((await postImport(server, room, tar, TYPES.tar, room.tokens.viewer)).json.error?.code).toBe('forbidden');
    expect((await postImport(server, room, tar, TYPES.tar, other.tokens.owner)).status).toBe(401);
    expect((await postImport(server, room, tar, TYPES.tar, '')).status).toBe(401);
    const put = await fetch(`${server.url}/api/rooms/${room.id}/blobs/${'0'.repeat(64)}`, { method: 'PUT', headers: { authorization: `Bearer ${room.tokens.viewer}` }, body: 'x' });
    expect(put.status).toBe(403);
    expect(await roomDocuments(server, room)).toEqual([]);
    expect(stagedFiles(server.dataDir, room.id)).toEqual([]);
    expect((await postImport(server, room, tar, TYPES.tar, room.tokens.owner)).status).toBe(201);
  });
});
