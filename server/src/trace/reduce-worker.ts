import { Buffer, isAscii } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { ChromeTraceReducer, TraceFormat, TraceFormatError, XSpaceReducer, type ReducedTrace, type TraceLimits } from '@seam/shared/trace';
import { FileSpool } from './file-spool';
import { storedForm } from './stored-form';
import type { ReduceReply, ReduceRequest, ReduceWorkerData } from './reducers';

/**
 * Worker side of `TraceReducers`: one trace per worker, its decompressed bytes arriving chunk by
 * chunk (each acknowledged, so the sender never runs ahead by more than a few); at `end`, the
 * reduced trace in its stored form, its buffers transferred. Errors are answered by name.
 */
const { format, limits, spoolFd } = workerData as ReduceWorkerData;
const reducer = format === TraceFormat.xplane
  ? new XSpaceReducer(limits as TraceLimits, spoolFd !== undefined ? new FileSpool(spoolFd) : undefined)
  : new ChromeTraceReducer(limits as TraceLimits);
const decoder = new TextDecoder('utf-8', { fatal: true });
/** Whether every chunk so far was ASCII (read as Latin-1, several times faster): the decoder has seen nothing yet. */
let ascii = true;

function text(bytes: Uint8Array, stream: boolean): string {
  if (ascii && isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  ascii = false;
  try {
    return decoder.decode(bytes, { stream });
  } catch {
    throw new TraceFormatError('the trace is not valid UTF-8 text');
  }
}

function reply(msg: ReduceReply, transfer: ArrayBuffer[] = []): void {
  parentPort?.postMessage(msg, transfer);
}

parentPort?.on('message', (msg: ReduceRequest) => {
  try {
    if (msg.type === 'chunk') {
      if (reducer instanceof XSpaceReducer) reducer.write(msg.bytes);
      else reducer.write(text(msg.bytes, true));
      reply({ type: 'ack' });
      return;
    }
    if (!(reducer instanceof XSpaceReducer)) reducer.write(text(new Uint8Array(0), false));
    const reduced: ReducedTrace = reducer.end();
    const stored = storedForm(reduced);
    const transfer = [stored.summary, stored.ops, stored.strings, ...stored.blocks.map((b) => b.gzip)].map((b) => b.buffer as ArrayBuffer);
    reply({ type: 'done', stored }, transfer);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    reply({ type: 'error', name: e.name, message: e.message });
  }
});
