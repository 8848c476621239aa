import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { badArchive, type ImportEntry } from './entries';

/**
 * The files of a `multipart/form-data` body as busboy parses it, one part at a time: each file
 * part is an entry whose path is its filename as sent (the folder's relative path, kept whole with
 * `preservePath`); fields are ignored. Busboy waits for each file to be read before the next, so
 * only one is in flight. A body that is not valid multipart is `bad_archive`. What is left of
 * `body` when it stops is its caller's to drain.
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
  parser.on('file', (_name, stream, info) => {
    // A part cut short errors at once, maybe before its reader is attached: the error is kept and thrown to the reader.
    stream.on('error', (err: Error) => push({ error: err }));
    push({ path: info.filename ?? '', stream });
  });
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
      yield { path: item.path, type: 'file', body: partBytes(item.stream) };
      item.stream.resume();
    }
  } finally {
    body.unpipe(parser);
  }
}

/** A part's bytes; a part cut short (its stream errored) is `bad_archive`. */
async function* partBytes(stream: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (err) {
    throw badArchive(`not a readable multipart body: ${(err as Error).message}`);
  }
  if (stream.errored) throw badArchive(`not a readable multipart body: ${stream.errored.message}`);
}
