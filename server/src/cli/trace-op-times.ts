import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { OpTime } from '@seam/shared/ir';
import {
  ChromeTraceReducer, isGzip, sniffTraceFormat, TraceFormat, TraceFormatError, TraceTooLarge, XSpaceReducer, type OpAggregate,
} from '@seam/shared/trace';

/** A trace file that cannot be read as a Chrome/Perfetto JSON trace or an XSpace; the message says why. */
export class TraceReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceReadError';
  }
}

/**
 * The gate's op rows from a reduced trace's per-op aggregates: the same rows the server stores at
 * ingest (`…/trace/ops`), so the room, the export and `seam gate` sum the same numbers. An op the
 * trace tags with no module keeps no module.
 */
export function opTimesOf(ops: readonly OpAggregate[]): OpTime[] {
  return ops.map((r) => ({ ...(r.module !== '' ? { module: r.module } : {}), op: r.op, totalUs: r.totalUs, count: r.count }));
}

/**
 * Per-op aggregates of a trace file (Chrome/Perfetto JSON, `.json` or `.json.gz`, or XProf's
 * `.xplane.pb`, gzipped or not), streamed through the same reducer the server runs at ingest: the
 * file is never held whole.
 */
export async function readTraceOps(path: string): Promise<readonly OpAggregate[]> {
  let source: Readable | undefined;
  let reducer: ChromeTraceReducer | XSpaceReducer | undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const text = (bytes: Uint8Array, stream: boolean): string => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      throw new TraceFormatError('the trace is not valid UTF-8 text');
    }
  };
  try {
    let head = Buffer.alloc(0);
    for await (const chunk of createReadStream(path, { start: 0, end: 1 })) head = Buffer.concat([head, chunk as Buffer]);
    const file = createReadStream(path, { highWaterMark: 1024 * 1024 });
    const unzip = isGzip(head) ? createGunzip({ chunkSize: 1024 * 1024 }) : undefined;
    if (unzip) file.on('error', (e) => unzip.destroy(e));
    source = unzip ? file.pipe(unzip) : file;
    for await (const raw of source) {
      const chunk = raw as Buffer;
      if (!reducer) {
        const format = sniffTraceFormat(chunk) ?? TraceFormat.chromeJson;
        reducer = format === TraceFormat.xplane ? new XSpaceReducer() : new ChromeTraceReducer();
      }
      if (reducer instanceof XSpaceReducer) reducer.write(chunk);
      else reducer.write(text(chunk, true));
    }
    if (!reducer) throw new TraceFormatError('the trace is empty');
    if (reducer instanceof ChromeTraceReducer) reducer.write(text(new Uint8Array(0), false));
    return reducer.end().ops;
  } catch (e) {
    if (e instanceof TraceFormatError || e instanceof TraceTooLarge) throw new TraceReadError(`${path}: ${e.message}`);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') throw new TraceReadError(`${path}: not a readable gzip file (${(e as Error).message})`);
    if (code !== undefined) throw new TraceReadError(`cannot read ${path}: ${(e as Error).message}`);
    throw e;
  } finally {
    source?.destroy();
  }
}

/** The gate's op rows of a trace file: {@link readTraceOps} as {@link opTimesOf} gives them. */
export async function readTraceOpTimes(path: string): Promise<OpTime[]> {
  return opTimesOf(await readTraceOps(path));
}
