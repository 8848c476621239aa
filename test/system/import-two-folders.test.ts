import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ImportResult, type DocumentMeta } from '@seam/shared/model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers';
import { archive, filesUnder, postImport, roomDocuments, TYPES } from '../helpers/import-kit';

const FIXTURES = fileURLToPath(new URL('../fixtures/diff/', import.meta.url));
const FOLDERS = ['sharded', 'sharded_constraint'] as const;

/** Each fixture file under the name JAX 0.10.2 and XLA:CPU give it (`JAX_DUMP_IR_TO=jax`, `--xla_dump_to=xla`); the rest keep theirs. */
const DUMP_NAMES: Readonly<Record<string, string>> = {
  'jaxpr.txt': 'jax/jax_000003_sharded_mlp.jaxpr.txt',
  'stablehlo-debug.mlir': 'jax/jax_ir0003_jit_sharded_mlp_compile.mlir',
  'hlo-opt.txt': 'xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt',
  'meta.json': 'meta.json',
  'program.py': 'program.py',
};

let server: TestServer;
let dir: string;
let files: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seam-import-two-'));
  for (const v of FOLDERS) {
    for (const [from, to] of Object.entries(DUMP_NAMES)) {
      mkdirSync(dirname(join(dir, v, to)), { recursive: true });
      copyFileSync(join(FIXTURES, v, from), join(dir, v, to));
    }
  }
  files = filesUnder(dir);
  server = await startTestServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each folder's module group holds that folder's jaxpr, StableHLO and optimized HLO, whose texts are the fixture's; the other files stay loose. */
async function expectTwoGroups(room: CreatedRoom, result: ImportResult): Promise<void> {
  ImportResult.parse(result);
  expect(result.added).toBe(files.length);
  const docs = new Map(result.documents.map((d) => [d.id, d]));
  const modules = result.groups.filter((g) => g.key.startsWith('module:'));
  expect(modules).toHaveLength(2);
  const listed = new Map((await roomDocuments(server, room)).map((d) => [d.id, d]));
  for (const v of FOLDERS) {
    const group = modules.find((g) => g.documentIds.some((id) => docs.get(id)!.title.startsWith(`${v}/`)))!;
    expect(group.label).toMatch(/^module 0006 jit_sharded_mlp · /);
    const members: DocumentMeta[] = group.documentIds.map((id) => docs.get(id)!);
    expect(members.map((d) => [d.kind, d.title])).toEqual([
      ['jaxpr', `${v}/jax/jax_000003_sharded_mlp.jaxpr.txt`],
      ['stablehlo', `${v}/jax/jax_ir0003_jit_sharded_mlp_compile.mlir`],
      ['hlo-opt', `${v}/xla/module_0006.jit_sharded_mlp.cpu_after_optimizations.txt`],
    ]);
    for (const d of members) {
      expect(listed.get(d.id)?.module?.groupId, d.title).toBe(group.key.replace(/^module:/, ''));
      const res = await fetch(`${server.url}/api/rooms/${room.id}/documents/${d.id}/text`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
      const from = Object.keys(DUMP_NAMES).find((k) => d.title === `${v}/${DUMP_NAMES[k]}`)!;
      expect(await res.text(), d.title).toBe(readFileSync(join(FIXTURES, v, from), 'utf8'));
    }
  }
  expect(modules[0]!.key).not.toBe(modules[1]!.key);
  const loose = result.groups.filter((g) => g.key.startsWith('single:')).map((g) => docs.get(g.documentIds[0]!)!.title).sort();
  expect(loose).toEqual(FOLDERS.flatMap((v) => [`${v}/meta.json`, `${v}/program.py`]));
}

describe('importing one archive holding two dump folders of one program', () => {
  it('keeps each folder its own module group from a tar.gz made by tar', async () => {
    const room = await createRoom(server, 'two folders, tar.gz');
    const tgz = execFileSync('tar', ['czf', '-', '-C', dir, ...FOLDERS]);
    const { status, json } = await postImport(server, room, tgz, TYPES['tar.gz']);
    expect(status).toBe(201);
    await expectTwoGroups(room, json);
  });

  it('keeps each folder its own module group from a zip', async () => {
    const room = await createRoom(server, 'two folders, zip');
    const zip = archive('zip', files.map((f) => ({ name: f, data: readFileSync(join(dir, f)) })));
    const { status, json } = await postImport(server, room, zip, TYPES.zip);
    expect(status).toBe(201);
    await expectTwoGroups(room, json);
  });
});
