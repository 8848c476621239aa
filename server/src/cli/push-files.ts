import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';

/** A local file of a push: where it is, the path it is imported under, and (once hashed) its sha256. */
export interface LocalFile {
  readonly file: string;
  /** Relative path in the import: a folder's own name, then the path inside it (`dumps/module_0000.jit_f.before_optimizations.txt`). */
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

/** What a push passes over locally, with why. */
export interface LocalSkip {
  readonly path: string;
  readonly reason: string;
}

/**
 * The files under `roots` (files and folders, read recursively, in name order): a file is
 * imported under its own name, a folder's files under the folder's name and their path inside it.
 * Links are not followed (listed as skipped), nor are sockets or devices.
 */
export async function listFiles(roots: readonly string[]): Promise<{ files: LocalFile[]; skipped: LocalSkip[] }> {
  const files: LocalFile[] = [];
  const skipped: LocalSkip[] = [];
  const walk = async (file: string, path: string): Promise<void> => {
    const s = await lstat(file);
    if (s.isSymbolicLink()) skipped.push({ path, reason: 'a link; push follows none' });
    else if (s.isFile()) files.push({ file, path, bytes: s.size, mtimeMs: s.mtimeMs });
    else if (s.isDirectory()) {
      for (const name of (await readdir(file)).sort()) await walk(join(file, name), `${path}/${name}`);
    } else skipped.push({ path, reason: 'not a file or folder' });
  };
  for (const root of roots) {
    const abs = resolve(root);
    const name = basename(abs) || relative(resolve(abs, '..'), abs).split(sep).join('/');
    await walk(abs, name);
  }
  return { files, skipped };
}

/** The sha256 of a file, read as a stream. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
