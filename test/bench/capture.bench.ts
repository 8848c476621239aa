import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { CaptureEntry, DocumentMeta } from '@seam/shared/model';
import { openDatabase, RunnerTokens, startServer, SyncMode } from '@seam/server';
import { connectClient, createRoom, waitFor } from '../helpers';
import { printTable, quantile } from './table';

/**
 * The MLP capture through Seam (REST request → every document in a viewer's room document) against
 * the same capture run directly as `python -m seam_capture.run`, alternating, RUNS times each.
 * The Seam time is broken down from the phases the room shows live and the harness's own timings.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PYTHON = join(ROOT, 'runners', '.venv', 'bin', 'python');
const MLP = 'import jax\n\n\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b).mean(axis=-1)\n';
const ARGS = [{ shape: [32, 64], dtype: 'float32' }, { shape: [64, 128], dtype: 'float32' }, { shape: [128], dtype: 'float32' }];
const CAPTURE = ['jaxpr', 'stablehlo', 'hlo', 'hlo-opt', 'cost', 'memory'];

const dataDir = mkdtempSync(join(tmpdir(), 'seam-bench-capture-'));
const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, runner: false, log: pino({ level: 'silent' }) });
const room = await createRoom(server);
const db = openDatabase(dataDir, SyncMode.normal);
const { token } = new RunnerTokens(db).create('bench');
const agent = spawn(process.execPath, [join(ROOT, 'runners', 'bin', 'seam-runner.js'), '--server', server.url, '--name', 'bench'], {
  cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SEAM_RUNNER_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'],
});
let connected = false;
createInterface({ input: agent.stdout }).on('line', (l) => { if (l.includes('connected as')) connected = true; });
await waitFor(() => connected, 'the runner to connect', 120_000);
const viewer = connectClient(server, room.id, room.tokens.viewer);
await viewer.synced();

/** When the viewer saw each phase of each job. */
const seen = new Map<string, Record<string, number>>();
viewer.doc.getMap<CaptureEntry>('captures').observe((ev) => {
  const t = performance.now();
  for (const id of ev.keysChanged) {
    const e = viewer.doc.getMap<CaptureEntry>('captures').get(id);
    if (!e) continue;
    const marks = seen.get(id) ?? {};
    const key = e.status === 'running' ? `running:${e.phase ?? ''}` : e.status;
    marks[key] ??= t;
    seen.set(id, marks);
  }
});

interface SeamRun { total: number; queue: number; startImports: number; jax: number; uploadIngest: number; roomUpdate: number }

async function throughSeam(): Promise<SeamRun> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/rooms/${room.id}/captures`, {
    method: 'POST', headers: { authorization: `Bearer ${room.tokens.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ program: MLP, entry: 'mlp', args: ARGS, capture: CAPTURE }),
  });
  const { job } = (await res.json()) as { job: CaptureEntry };
  const docs = viewer.doc.getMap<DocumentMeta>('documents');
  let entry: CaptureEntry | undefined;
  await waitFor(() => {
    entry = viewer.doc.getMap<CaptureEntry>('captures').get(job.id);
    return entry?.status === 'done' && entry.documents.every((d) => docs.has(d));
  }, 'the capture in the room', 120_000);
  const t1 = performance.now();
  const m = seen.get(job.id) ?? {};
  const timings = (entry?.analyses?.timings ?? {}) as Record<string, number>;
  const jax = 1000 * ((timings.programSeconds ?? 0) + (timings.jaxprSeconds ?? 0) + (timings.lowerSeconds ?? 0) + (timings.compileSeconds ?? 0));
  const running = m['running:running'] ?? t0;
  const uploading = m['running:uploading'] ?? running;
  const done = m.done ?? t1;
  return { total: t1 - t0, queue: running - t0, startImports: uploading - running - jax, jax, uploadIngest: done - uploading, roomUpdate: t1 - done };
}

function direct(): number {
  const dir = mkdtempSync(join(tmpdir(), 'seam-bench-direct-'));
  writeFileSync(join(dir, 'job.json'), JSON.stringify({ program: MLP, entry: 'mlp', args: ARGS, capture: ['jaxpr', 'stablehlo-debug', 'hlo', 'hlo-opt', 'cost', 'memory'] }));
  const t0 = performance.now();
  const r = spawnSync(PYTHON, ['-m', 'seam_capture.run', join(dir, 'job.json'), join(dir, 'out')], { env: { PATH: '/usr/bin:/bin', PYTHONPATH: join(ROOT, 'runners', 'python') } });
  const ms = performance.now() - t0;
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`direct capture failed: ${r.stderr.toString()}`);
  return ms;
}

direct();
await throughSeam();
const seamRuns: SeamRun[] = [];
const directRuns: number[] = [];
for (let i = 0; i < RUNS; i++) {
  directRuns.push(direct());
  seamRuns.push(await throughSeam());
}

const med = (f: (r: SeamRun) => number) => quantile(seamRuns.map(f), 0.5);
const seam = med((r) => r.total);
const ref = quantile(directRuns, 0.5);
printTable(`MLP capture, ${RUNS} runs each after one warm-up, medians (ms)`, ['stage', 'Seam', 'direct script'], [
  ['queue (request → runner starts)', med((r) => r.queue), '-'],
  ['process start and imports', med((r) => r.startImports), '-'],
  ['JAX work (trace, lower, compile)', med((r) => r.jax), '-'],
  ['upload and ingest', med((r) => r.uploadIngest), '-'],
  ['room update (done → all docs in a viewer)', med((r) => r.roomUpdate), '-'],
  ['total', seam, ref],
]);
console.log(`\nratio Seam / direct script: ${(seam / ref).toFixed(2)}× (goal ≤ 1.3×)`);

viewer.destroy();
agent.kill('SIGTERM');
await new Promise((r) => agent.once('exit', r));
db.close();
await server.close();
rmSync(dataDir, { recursive: true, force: true });
