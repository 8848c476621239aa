import { existsSync, readFileSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { analyze, type Analysis } from '@seam/shared/ir';

/**
 * The IR benchmark's side of the analysis worker thread (started by `startAnalysisWorker`, with the
 * product's heap settings): reads the dump named in `workerData`, then per message times one
 * `analyze(text, 'hlo-opt')` or measures the heap. With `workerData.peak`, it measures the peak
 * heap of one analyze for a `--trace-gc` parent instead, printing `BASELINE`/`END` lines.
 */
export type IrBenchRequest = 'analyze' | 'retained' | 'summary';

/** One timed analyze: wall clock and this thread's CPU time (seconds). */
export interface IrBenchRun {
  readonly wall: number;
  readonly threadCpu: number;
}

/** What the benchmark prints about the index, from the last analyze. */
export interface IrBenchSummary {
  readonly computations: number;
  readonly values: number;
  readonly keys: number;
  readonly fusions: number;
  readonly dots: number;
  readonly spills: number;
  readonly errors: number;
  readonly topSpill: string | undefined;
}

const { file, peak } = workerData as { file: string; peak?: boolean };
const text = readFileSync(file, 'utf8');
const gc = (globalThis as { gc?: () => void }).gc;

if (peak) {
  if (!gc) throw new Error('run with --expose-gc');
  // Written straight to the file descriptor, so the lines fall in order between V8's own trace lines.
  gc();
  writeSync(1, `BASELINE ${process.memoryUsage().heapUsed}\n`);
  const result = analyze(text, 'hlo-opt');
  writeSync(1, `END ${process.memoryUsage().heapUsed} ${result.index.values.length}\n`);
} else {
  let last: Analysis | undefined;
  parentPort?.on('message', (request: IrBenchRequest) => {
    if (request === 'analyze') {
      // The previous index is garbage here, as in the product, where each analyze's index leaves the thread.
      last = undefined;
      const c0 = threadCpuSeconds();
      const t0 = performance.now();
      last = analyze(text, 'hlo-opt');
      parentPort?.postMessage({ wall: (performance.now() - t0) / 1000, threadCpu: threadCpuSeconds() - c0 } satisfies IrBenchRun);
    } else if (request === 'retained') {
      parentPort?.postMessage(retainedIndexBytes());
    } else {
      parentPort?.postMessage(summary(last ?? analyze(text, 'hlo-opt')));
    }
  });
}

/** Heap held by the index once built (after a full collection), with the text already loaded; NaN without `--expose-gc`. */
function retainedIndexBytes(): number {
  if (!gc) return NaN;
  gc();
  const before = process.memoryUsage().heapUsed;
  const result = analyze(text, 'hlo-opt');
  gc();
  const after = process.memoryUsage().heapUsed;
  return result.index.bytes > 0 ? after - before : 0;
}

function summary({ index, diagnostics }: Analysis): IrBenchSummary {
  const top = index.spills[0];
  return {
    computations: index.outline.reduce((n, m) => n + (m.children?.length ?? 1), 0),
    values: index.values.length,
    keys: index.keys.length,
    fusions: index.fusions.length,
    dots: index.dots.length,
    spills: index.spills.length,
    errors: diagnostics.filter((d) => d.severity === 'error').length,
    topSpill: top && `${top.producer} ${top.type} ${top.bytes.toLocaleString('en-US')} B, traffic ${top.traffic.toLocaleString('en-US')} B`,
  };
}

/**
 * CPU seconds of this thread (Linux `schedstat`; NaN elsewhere): what one analyze costs the thread
 * that runs it, without the collector's helper threads and without the time a busy machine keeps
 * it waiting.
 */
function threadCpuSeconds(): number {
  const schedstat = '/proc/thread-self/schedstat';
  return existsSync(schedstat) ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e9 : NaN;
}
