import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';

/**
 * Stored bodies are gzip; these open them without holding the event loop: zlib runs on libuv's
 * thread pool, so a large dump decompressed for one reader does not stall every other socket.
 */

/** The bytes inside `gz`, decompressed on the thread pool. */
export const gunzipAsync: (gz: Uint8Array) => Promise<Buffer> = promisify(gunzip);

/** The bytes inside `gz` as a web stream, decompressed chunk by chunk on the thread pool as the reader pulls. */
export function gunzipStream(gz: Uint8Array): ReadableStream<Uint8Array> {
  // Large chunks: a few hundred callbacks for a big dump, not thousands.
  const unzip = createGunzip({ chunkSize: 256 * 1024 });
  unzip.end(gz);
  return Readable.toWeb(unzip) as ReadableStream<Uint8Array>;
}
