import { Buffer, isAscii } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { ChromeTraceReducer, TraceFormat, TraceFormatError, XSpaceReducer } from '@seam/shared/trace';
import { FileSpool } from './file-spool';
import type { ReduceReply, ReduceRequest } from './reducers';
import { storedForm, type StoredTrace } from './stored-form';

/** One trace being reduced: its reducer and, for JSON, how its bytes become text. */
class Reduction {
  private readonly reducer: XSpaceReducer | ChromeTraceReducer;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** Whether every chunk so far was ASCII (read as Latin-1, several times faster): the decoder has seen nothing yet. */
  private ascii = true;

  constructor(start: Extract<ReduceRequest, { type: 'start' }>) {
    this.reducer = start.format === TraceFormat.xplane
      ? new XSpaceReducer(start.limits, start.spoolFd !== undefined ? new FileSpool(start.spoolFd) : undefined)
      : new ChromeTraceReducer(start.limits);
  }

  write(bytes: Uint8Array): void {
    if (this.reducer instanceof XSpaceReducer) this.reducer.write(bytes);
    else this.reducer.write(this.text(bytes, true));
  }

  end(): Promise<StoredTrace> {
    if (!(this.reducer instanceof XSpaceReducer)) this.reducer.write(this.text(new Uint8Array(0), false));
    return storedForm(this.reducer.end());
  }

  private text(bytes: Uint8Array, stream: boolean): string {
    if (this.ascii && isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    this.ascii = false;
    try {
      return this.decoder.decode(bytes, { stream });
    } catch {
      throw new TraceFormatError('the trace is not valid UTF-8 text');
    }
  }
}

/**
 * Worker side of `TraceReducers`: one trace after another, each started by a `start` message,
 * its decompressed bytes arriving chunk by chunk (each acknowledged, so the sender never runs
 * ahead by more than a few); at `end`, the reduced trace in its stored form, its buffers
 * transferred. Errors are answered by name.
 */
let reduction: Reduction | undefined;

function reply(msg: ReduceReply, transfer: ArrayBuffer[] = []): void {
  parentPort?.postMessage(msg, transfer);
}

parentPort?.on('message', async (msg: ReduceRequest) => {
  try {
    if (msg.type === 'start') {
      reduction = new Reduction(msg);
      return;
    }
    if (!reduction) throw new Error(`a trace's ${msg.type} came before its start`);
    if (msg.type === 'chunk') {
      reduction.write(msg.bytes);
      reply({ type: 'ack' });
      return;
    }
    const done = reduction;
    // What the trace held is garbage from here on, whatever comes next.
    reduction = undefined;
    const stored = await done.end();
    const transfer = [stored.summary, stored.ops, stored.strings, stored.overview, ...stored.blocks.map((b) => b.gzip)].map((b) => b.buffer as ArrayBuffer);
    reply({ type: 'done', stored }, transfer);
  } catch (err) {
    reduction = undefined;
    const e = err instanceof Error ? err : new Error(String(err));
    reply({ type: 'error', name: e.name, message: e.message });
  }
});
