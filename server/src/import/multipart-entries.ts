import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badArchive, type ImportEntry } from './entries';

/**
 * The files of a `multipart/form-data` body as busboy parses it, one part at a time: each file
 * part is an entry whose path is its filename as sent (the folder's relative path, kept whole with
 * `preservePath`); fields are ignored. Busboy waits for each file to be read before the next, so
 * only one is in flight. A body that is not valid multipart is `bad_archive`.
 */
export async function* multipartEntries(body: Readable, headers: Record<string, string>): AsyncGenerator<ImportEntry> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers, preservePath: true, limits: { fieldSize: 64 * 1024, fields: 100 } });
  } catch (err) {
    throw badArchive(`not a multipart body: ${(err as Error).message}`);
  }
  const queue: ({ path: string; stream: Readable } | { error: Error } | { end: true })[] = [];
  let wake: (() => void) | undefined;
  const push = (item: (typeof queue)[number]) => {
    queue.push(item);
    wake?.();
  };
  parser.on('file', (_name, stream, info) => push({ path: info.filename ?? '', stream }));
  parser.on('close', () => push({ end: true }));
  parser.on('error', (err: Error) => push({ error: err }));
  body.on('error', (err) => push({ error: err }));
  body.pipe(parser);
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((resolve) => { wake = resolve; });
      wake = undefined;
      const item = queue.shift()!;
      if ('end' in item) return;
      if ('error' in item) throw badArchive(`not a readable multipart body: ${item.error.message}`);
      yield { path: item.path, type: 'file', body: item.stream };
      item.stream.resume();
    }
  } finally {
    body.unpipe(parser);
    body.destroy();
  }
}
