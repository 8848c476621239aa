import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ApiError, ErrorCode } from '../errors';
import { badArchive, unsafePath, type ImportEntry } from './entries';

/** File-type bits of a zip member's Unix mode (the high half of its external attributes). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** What a zip member is: a folder by its trailing slash, a link or device by its Unix mode when the archive records one. */
function typeOf(entry: yauzl.Entry): ImportEntry['type'] {
  if (entry.fileName.endsWith('/')) return 'directory';
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === 0 || mode === S_IFREG) return 'file';
  if (mode === S_IFDIR) return 'directory';
  if (mode === S_IFLNK) return 'link';
  return 'other';
}

/** yauzl's refusals of a member's name (`absolute path: /x`, `invalid relative path: ../x`, a backslash) are unsafe paths, the rest a bad archive. */
function zipError(err: Error): ApiError {
  if (/^(?:absolute path|invalid relative path|invalid characters in fileName)/.test(err.message)) return unsafePath(err.message);
  return badArchive(`not a readable zip archive: ${err.message}`);
}

/**
 * The members of a zip body. A zip is read from its end (the central directory), so the body is
 * first written to a temporary file in `tmpDir`, at most `maxBytes` of it (413 past that); then
 * yauzl reads it member by member, each inflated as the reader pulls, checked against its header
 * (`validateEntrySizes`). Encrypted members and unknown compression are `bad_archive`. The
 * temporary file is removed when the reader is done or fails.
 */
export async function* zipEntries(body: AsyncIterable<Uint8Array>, tmpDir: string, maxBytes: number): AsyncGenerator<ImportEntry> {
  await mkdir(tmpDir, { recursive: true });
  const file = join(tmpDir, `zip-${randomBytes(8).toString('hex')}`);
  let zip: yauzl.ZipFile | undefined;
  try {
    const out = createWriteStream(file);
    let bytes = 0;
    try {
      for await (const chunk of body) {
        bytes += chunk.length;
        if (bytes > maxBytes) throw new ApiError(ErrorCode.tooLarge, `an archive may be at most ${maxBytes} bytes (SEAM_IMPORT_BYTES)`);
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await finished(out);
    } catch (err) {
      out.destroy();
      throw err;
    }
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true }, (err, z) => (err ? reject(zipError(err)) : resolve(z)));
    });
    const z = zip;
    for (;;) {
      const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => { cleanup(); resolve(e); };
        const onEnd = () => { cleanup(); resolve(undefined); };
        const onError = (err: Error) => { cleanup(); reject(zipError(err)); };
        const cleanup = () => { z.off('entry', onEntry); z.off('end', onEnd); z.off('error', onError); };
        z.on('entry', onEntry).on('end', onEnd).on('error', onError);
        z.readEntry();
      });
      if (!entry) return;
      const type = typeOf(entry);
      if (type !== 'file') {
        yield { path: entry.fileName, type, body: (async function* () {})() };
        continue;
      }
      if (entry.isEncrypted()) throw badArchive(`${entry.fileName} is encrypted`);
      if (!entry.canDecodeFileData()) throw badArchive(`${entry.fileName} uses a compression method this server does not read (${entry.compressionMethod})`);
      const stream = await new Promise<Readable>((resolve, reject) => z.openReadStream(entry, (err, s) => (err ? reject(zipError(err)) : resolve(s))));
      // The reader below gets the first error; yauzl may forward the same one again after the reader has let go.
      stream.on('error', () => undefined);
      yield { path: entry.fileName, type, body: guarded(stream) };
      stream.destroy();
    }
  } finally {
    zip?.close();
    await rm(file, { force: true });
  }
}

/** A member's bytes, its inflate and size errors turned into `bad_archive`. */
async function* guarded(stream: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (err) {
    throw err instanceof ApiError ? err : zipError(err as Error);
  }
}
