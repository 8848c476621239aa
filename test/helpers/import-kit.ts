import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentMeta, ImportResult } from '@seam/shared/model';
import type { CreatedRoom, TestServer } from '.';

/** Helpers the import end-to-end tests share: real JAX dump folders, archives made by Python's zipfile and tarfile, and the import calls. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PYTHON = join(ROOT, 'runners', '.venv', 'bin', 'python');

/** Two jit functions, so a dump folder holds several modules (and jnp.ones compiles helpers of one name twice). */
const PROGRAM = `
import jax, jax.numpy as jnp
@jax.jit
def f(x, w):
    return jnp.tanh(x @ w).sum()
@jax.jit
def train_step(x):
    return (x * 2 + 1).mean()
x = jnp.ones((8, 16)); w = jnp.ones((16, 4))
f(x, w).block_until_ready(); train_step(x).block_until_ready()
`;

/**
 * Writes a real dump into `dir` with JAX on CPU: `dir/xla` from `--xla_dump_to` (text and proto,
 * and per-pass dumps when `passes`), `dir/jax` from `JAX_DUMP_IR_TO` (StableHLO and jaxpr).
 * Returns the files' paths relative to `dir`.
 */
export function writeJaxDump(dir: string, opts: { passes?: boolean } = {}): string[] {
  const flags = [`--xla_dump_to=${join(dir, 'xla')}`, '--xla_dump_hlo_as_text', '--xla_dump_hlo_as_proto', ...(opts.passes ? ['--xla_dump_hlo_pass_re=.*'] : [])];
  execFileSync(PYTHON, ['-c', PROGRAM], { env: { ...process.env, XLA_FLAGS: flags.join(' '), JAX_DUMP_IR_TO: join(dir, 'jax'), JAX_DUMP_IR_MODES: 'stablehlo,jaxpr', JAX_PLATFORMS: 'cpu' }, stdio: ['ignore', 'ignore', 'pipe'] });
  return filesUnder(dir);
}

/** Every file under `dir`, as paths relative to it with `/`. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

/** One member of an archive Python writes: a file's bytes (base64), or a link, device or folder, under any name at all. */
export type Member =
  | { readonly name: string; readonly data: string | Buffer }
  | { readonly name: string; readonly symlink: string }
  | { readonly name: string; readonly hardlink: string }
  | { readonly name: string; readonly device: true }
  | { readonly name: string; readonly dir: true };

const ARCHIVER = `
import base64, io, json, sys, tarfile, zipfile, stat
fmt, members = sys.argv[1], json.load(sys.stdin)
out = io.BytesIO()
if fmt == 'zip':
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        for m in members:
            info = zipfile.ZipInfo(m['name'])
            info.compress_type = zipfile.ZIP_DEFLATED
            if 'symlink' in m:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                z.writestr(info, m['symlink'])
            elif 'device' in m:
                info.external_attr = (stat.S_IFCHR | 0o666) << 16
                z.writestr(info, b'')
            elif 'dir' in m:
                z.writestr(info, b'')
            else:
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                z.writestr(info, base64.b64decode(m['data']))
else:
    with tarfile.open(fileobj=out, mode='w:gz' if fmt == 'tar.gz' else 'w', format=tarfile.PAX_FORMAT) as t:
        for m in members:
            info = tarfile.TarInfo(m['name'])
            data = b''
            if 'symlink' in m:
                info.type, info.linkname = tarfile.SYMTYPE, m['symlink']
            elif 'hardlink' in m:
                info.type, info.linkname = tarfile.LNKTYPE, m['hardlink']
            elif 'device' in m:
                info.type = tarfile.CHRTYPE
            elif 'dir' in m:
                info.type = tarfile.DIRTYPE
            else:
                data = base64.b64decode(m['data'])
                info.size = len(data)
            t.addfile(info, io.BytesIO(data) if data else None)
sys.stdout.buffer.write(out.getvalue())
`;

/** An archive (`zip`, `tar` or `tar.gz`) of `members`, written by Python's zipfile or tarfile, which take any name given. */
export function archive(format: 'zip' | 'tar' | 'tar.gz', members: readonly Member[]): Buffer {
  const input = JSON.stringify(members.map((m) => ('data' in m ? { name: m.name, data: Buffer.from(m.data).toString('base64') } : m)));
  return execFileSync(PYTHON, ['-c', ARCHIVER, format], { input, maxBuffer: 1 << 30 });
}

/** The content type of each archive format, as the import takes it. */
export const TYPES = { zip: 'application/zip', tar: 'application/x-tar', 'tar.gz': 'application/gzip' } as const;

/** `POST /api/rooms/:id/imports` with `body`; resolves to the status and the parsed answer. */
export async function postImport(server: Pick<TestServer, 'url'>, room: CreatedRoom, body: BodyInit | Buffer, type: string | undefined, token = room.tokens.annotator): Promise<{ status: number; json: ImportResult & { error?: { code: string; message: string } } }> {
  const res = await fetch(`${server.url}/api/rooms/${room.id}/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...(type ? { 'content-type': type } : {}) }, body: Buffer.isBuffer(body) ? new Uint8Array(body) : body });
  return { status: res.status, json: (await res.json()) as ImportResult & { error?: { code: string; message: string } } };
}

/** The room's documents as `GET /api/rooms/:id` lists them. */
export async function roomDocuments(server: Pick<TestServer, 'url'>, room: CreatedRoom): Promise<DocumentMeta[]> {
  const res = await fetch(`${server.url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
  return ((await res.json()) as { documents: DocumentMeta[] }).documents;
}

/** Files left in the room's staging folder of a server's data directory (none after an import, or after a refused one). */
export function stagedFiles(dataDir: string, roomId: string): string[] {
  try {
    return readdirSync(join(dataDir, 'staging', roomId));
  } catch {
    return [];
  }
}
