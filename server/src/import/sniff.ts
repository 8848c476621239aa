import type { Readable } from 'node:stream';
import { ArchiveFormat } from './entries';

/** Bytes enough to see a tar header's `ustar` magic (at offset 257). */
const HEAD_BYTES = 512;

/**
 * The archive format of a body sent without a telling content type (`application/octet-stream`),
 * from its first bytes: `PK\x03\x04` (or an empty zip's `PK\x05\x06`) a zip, `\x1f\x8b` a gzip
 * (read as a .tar.gz), `ustar` at offset 257 a tar; undefined otherwise. The bytes read are put
 * back, so the body reads whole afterwards.
 */
export async function sniffArchive(body: Readable): Promise<ArchiveFormat | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = await new Promise<Buffer | null>((resolve, reject) => {
      const read = body.read() as Buffer | null;
      if (read !== null) return resolve(read);
      if (body.readableEnded) return resolve(null);
      const done = () => { cleanup(); resolve(body.read() as Buffer | null); };
      const fail = (err: Error) => { cleanup(); reject(err); };
      const cleanup = () => { body.off('readable', done); body.off('end', done); body.off('error', fail); };
      body.once('readable', done).once('end', done).once('error', fail);
    });
    if (chunk === null) break;
    chunks.push(chunk);
    length += chunk.length;
    if (length >= HEAD_BYTES) break;
  }
  const head = Buffer.concat(chunks);
  if (head.length > 0) body.unshift(head);
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) return ArchiveFormat.zip;
  if (head[0] === 0x1f && head[1] === 0x8b) return ArchiveFormat.tarGz;
  if (head.subarray(257, 262).toString('latin1') === 'ustar') return ArchiveFormat.tar;
  return undefined;
}
