import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { ANALYSIS_WORKER_LIMITS, startAnalysisWorker } from '@seam/server';
import type { IrBenchRequest, IrBenchRun, IrBenchSummary } from './ir-parse-worker';
import { printTable } from './table';

/**
 * IR benchmark: parse + analyze a ≥ 20 MB optimized HLO dump compiled from a real 48-layer
 * transformer, against XLA's own C++ HLO text parser on the same file (reached through jaxlib).
 * `analyze` runs as the product runs it on a large dump: in a worker thread started by the
 * server's `startAnalysisWorker`, with the same heap settings. The dump is generated once into the
 * OS temp folder and reused; the generator, not the dump, lives in the repository. Prints MB/s
 * (best of RUNS, wall clock, as the XLA timer reports; also CPU time of all threads and of the
 * worker thread alone, for a busy machine), peak heap during one analyze (from `--trace-gc`, in a
 * child process running the same worker) and the ratio. `SEAM_LARGE_HLO=FILE` benchmarks another dump.
 */
const RUNS = 5;
const MIN_BYTES = 20_000_000;
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const python = join(repo, 'runners', '.venv', 'bin', 'python');
const workerEntry = new URL('./ir-parse-worker.ts', import.meta.url);

if (process.argv[2] === '--peak-heap') {
  startAnalysisWorker(workerEntry, { file: process.argv[3] ?? '', peak: true });
} else {
  await main();
}

async function main(): Promise<void> {
  const file = process.env.SEAM_LARGE_HLO ?? ensureDump(join(tmpdir(), 'seam-ir-bench', 'large-hlo-opt.txt'));
  const text = readFileSync(file, 'utf8');
  const mb = text.length / 1e6;
  console.log(`dump: ${file} (${mb.toFixed(1)} MB, ${text.split('\n').length.toLocaleString('en-US')} lines); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  console.log(`analyze runs in a worker thread with the analyzer's heap settings: ${JSON.stringify(ANALYSIS_WORKER_LIMITS)}`);

  const worker = startAnalysisWorker(workerEntry, { file });
  const wall: number[] = [];
  const cpu: number[] = [];
  const thread: number[] = [];
  let summary: IrBenchSummary;
  let retained: number;
  try {
    await ask<IrBenchRun>(worker, 'analyze');
    for (let i = 0; i < RUNS; i++) {
      const c0 = process.cpuUsage();
      const run = await ask<IrBenchRun>(worker, 'analyze');
      const c = process.cpuUsage(c0);
      wall.push(run.wall);
      thread.push(run.threadCpu);
      cpu.push((c.user + c.system) / 1e6);
    }
    summary = await ask<IrBenchSummary>(worker, 'summary');
    retained = await ask<number>(worker, 'retained');
  } finally {
    await worker.terminate();
  }
  const best = Math.min(...wall);
  const peak = measurePeakHeap(file);
  const xla = timeXla(file);

  printTable('analyze (parse + index) of the optimized HLO dump, in the analysis worker thread', ['measure', 'value'], [
    ['MB/s, best wall clock', mb / best],
    ['MB/s, median wall clock', mb / median(wall)],
    ['MB/s, best CPU time (all threads)', mb / Math.min(...cpu)],
    ['MB/s, best worker-thread CPU time', mb / Math.min(...thread)],
    ['seconds, best', best],
    ['peak heap during analyze, MB', peak / 1e6],
    ['peak heap / file size', peak / text.length],
    ['retained index, MB', retained / 1e6],
    ['computations / values / keys', `${summary.computations} / ${summary.values} / ${summary.keys}`],
    ['fusions / dots / spills', `${summary.fusions} / ${summary.dots} / ${summary.spills}`],
    ['error diagnostics', summary.errors],
  ]);
  if (summary.topSpill) console.log(`top spill: ${summary.topSpill}`);

  if (xla) {
    printTable('against XLA\'s C++ HLO text parser (jaxlib hlo_module_from_text, parse only)', ['parser', 'seconds (best)', 'MB/s'], [
      ['Seam analyze (parse + index)', best, mb / best],
      [`XLA ${xla.api}`, xla.seconds, mb / xla.seconds],
    ]);
    console.log(`ratio (XLA seconds / Seam seconds): ${(xla.seconds / best).toFixed(2)}  (> 1: Seam is faster)`);
  }
  const goals = [`>= 100 MB/s: ${mb / best >= 100 ? 'met' : 'not met'}`, `peak heap <= 3x file: ${peak <= 3 * text.length ? 'met' : 'not met'}`];
  if (xla) goals.push(`faster than XLA: ${xla.seconds / best > 1 ? 'met' : 'not met'}`);
  console.log(`goals: ${goals.join('; ')}`);
}

/** The worker's answer to one request; rejects if the worker fails first. */
function ask<T>(worker: Worker, request: IrBenchRequest): Promise<T> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      worker.off('message', done);
      reject(err);
    };
    const done = (reply: T) => {
      worker.off('error', fail);
      resolve(reply);
    };
    worker.once('message', done);
    worker.once('error', fail);
    worker.postMessage(request);
  });
}

/** The dump at `path`, generated by the large-HLO generator when missing or too small. */
function ensureDump(path: string): string {
  if (existsSync(path) && statSync(path).size >= MIN_BYTES) return path;
  mkdirSync(dirname(path), { recursive: true });
  console.log(`generating ${path} with runners/python/gen_large_hlo.py (compiles a 48-layer transformer; minutes)`);
  const run = spawnSync(python, [join(repo, 'runners', 'python', 'gen_large_hlo.py'), path], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new Error(`gen_large_hlo.py exited with ${run.status ?? run.signal}`);
  if (statSync(path).size < MIN_BYTES) throw new Error(`${path} is smaller than ${MIN_BYTES} bytes`);
  return path;
}

/** XLA's parse time on the file, from runners/python/time_xla_parser.py; undefined when jaxlib is missing. */
function timeXla(file: string): { seconds: number; api: string } | undefined {
  if (!existsSync(python)) {
    console.log('no runners/.venv: skipping the XLA parser comparison (npx tsx runners/src/venv.ts builds it)');
    return undefined;
  }
  const run = spawnSync(python, [join(repo, 'runners', 'python', 'time_xla_parser.py'), file, '--repeat', String(RUNS)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`time_xla_parser.py exited with ${run.status}: ${run.stderr}`);
  const line = run.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as { seconds: number; api: string };
}

/**
 * Peak heap of one analyze, above the heap holding the text: a child process runs it in the
 * analysis worker under `--trace-gc`, whose lines give each isolate's heap in use before every
 * collection (`[pid:0xISOLATE] … Scavenge 35.1 (50.2) -> …`). The worker's isolate is the one whose
 * forced collection (`testing`) comes just before its baseline; the largest of its lines between
 * the baseline and the end, and the heap at the end, less the baseline, is the peak.
 */
function measurePeakHeap(file: string): number {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--trace-gc', fileURLToPath(import.meta.url), '--peak-heap', file], {
    encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`peak-heap child exited with ${run.status}: ${run.stderr}`);
  const lines = run.stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('BASELINE '));
  const end = lines.findIndex((l) => l.startsWith('END '));
  const isolate = lines.slice(0, start).reverse().find((l) => l.includes(' testing;'))?.split(']')[0];
  if (start < 0 || end < start || !isolate) throw new Error('peak-heap child printed no baseline, end or forced collection');
  const baseline = Number(lines[start]?.split(' ')[1]);
  let peak = Number(lines[end]?.split(' ')[1]);
  for (const l of lines.slice(start + 1, end)) {
    if (!l.startsWith(`${isolate}]`)) continue;
    const m = /: (?:Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact|MinorMS)[^\d]*([\d.]+) \(/.exec(l);
    if (m?.[1]) peak = Math.max(peak, Number(m[1]) * 1024 * 1024);
  }
  return peak - baseline;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
