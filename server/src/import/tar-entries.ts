import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { badArchive, type ImportEntry } from './entries';

type TarType = tar.Header['type'];

/** What a tar member is to an import: regular files and folders, links, and the rest (devices, FIFOs). */
function typeOf(t: TarType | undefined): ImportEntry['type'] {
  if (t === 'file' || t === 'contiguous-file' || t === undefined) return 'file';
  if (t === 'directory') return 'directory';
  if (t === 'symlink' || t === 'link') return 'link';
  return 'other';
}

/**
 * The members of a tar (`gzipped`: a .tar.gz/.tgz, inflated by zlib as it streams) as they arrive;
 * pax and GNU long names are read by tar-stream. A broken gzip or tar stream is `bad_archive`.
 * What is left of `body` when it stops is its caller's to drain.
 */
export async function* tarEntries(body: Readable, gzipped: boolean): AsyncGenerator<ImportEntry> {
  const extract = tar.extract();
  const gunzip = gzipped ? createGunzip({ chunkSize: 256 * 1024 }) : undefined;
  const source: Readable = gunzip ? body.pipe(gunzip) : body;
  const fail = (err: Error) => extract.destroy(err);
  source.on('error', fail);
  body.on('error', fail);
  source.pipe(extract);
  try {
    for await (const entry of extract) {
      // The reader of the entry, or the loop over `extract`, gets its error; this keeps a second emission from going unheard.
      entry.on('error', () => undefined);
      yield { path: entry.header.name, type: typeOf(entry.header.type), body: entry as AsyncIterable<Uint8Array> };
      entry.resume();
    }
  } catch (err) {
    if (err instanceof Error && !('code' in err && typeof err.code === 'string' && !err.code.startsWith('Z_'))) {
      throw badArchive(`not a readable ${gzipped ? 'tar.gz' : 'tar'} archive: ${err.message}`);
    }
    throw err;
  } finally {
    source.unpipe(extract);
    if (gunzip) {
      body.unpipe(gunzip);
      gunzip.destroy();
    }
    extract.destroy();
  }
}
