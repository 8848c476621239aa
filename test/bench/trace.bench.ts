import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import type { OpAggregate } from '@seam/shared/trace';
import { ensureBenchVenv, TRACE_REFERENCE_SCRIPT } from '@seam/runners';
import { venvPython } from '../../runners/src/venv';
import { createRoom, startTestServer, type CreatedRoom, type TestServer } from '../helpers';
import { printTable } from './table';
import { writeTrace } from './trace-gen';

/**
 * `npm run bench trace`: a generated trace of 10⁶ events (about 140 MB of Perfetto JSON, and the
 * same events as an xplane.pb) uploaded over HTTP to a real server in a child process: ingest time
 * (request to 201: streamed, reduced in a worker, stored), MB/s and the server's peak RSS growth,
 * for the JSON raw, the JSON gzipped and the xplane.pb. References in the same run: the JSON
 * aggregated per op in Python with the standard `json` module, and XProf (PyPI `xprof`) reading
 * the xplane.pb with its XPlane reader and converting it for its trace viewer. The op tables are
 * checked against what was written. Time to first timeline paint and pan/zoom frames belong to the
 * trace view's benchmark.
 */
const EVENTS = Number(process.env.BENCH_TRACE_EVENTS ?? 1_000_000);
const run = promisify(execFile);
const MB = 1e6;

const dir = mkdtempSync(join(tmpdir(), 'seam-bench-trace-'));
const jsonPath = join(dir, 'trace.json');
const gzPath = join(dir, 'trace.json.gz');
const xplanePath = join(dir, 'trace.xplane.pb');
let t = performance.now();
const written = await writeTrace(EVENTS, jsonPath, xplanePath);
await pipeline(createReadStream(jsonPath), createGzip(), createWriteStream(gzPath));
const size = (p: string) => statSync(p).size;
console.log(`generated ${written.events.toLocaleString('en-US')} events, ${written.steps} steps, ${written.ops.size} ops in ${((performance.now() - t) / 1000).toFixed(1)} s: `
  + `JSON ${(size(jsonPath) / MB).toFixed(1)} MB (gzipped ${(size(gzPath) / MB).toFixed(1)} MB), xplane.pb ${(size(xplanePath) / MB).toFixed(1)} MB`);

const venv = await ensureBenchVenv({ onProgress: (l) => console.log(`bench venv: ${l}`) });
/** A server in a child process, its room, and its resident set (MB, from /proc). */
interface Bench { readonly server: TestServer; readonly room: CreatedRoom; readonly rss: () => number }

async function startBench(): Promise<Bench> {
  const server = await startTestServer({ child: true });
  const pid = server.child!.pid!;
  return { server, room: await createRoom(server, 'trace bench'), rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024 };
}

interface Ingest { seconds: number; rssGrowthMb: number; ops: OpAggregate[]; events: number }

/** POSTs a file as a document, streamed from disk in 1 MB pieces; the answer's status and JSON. */
function upload({ server, room }: Bench, path: string, title: string): Promise<{ status: number; body: { id: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/rooms/${room.id}/documents?title=${encodeURIComponent(title)}`, {
      method: 'POST', headers: { authorization: `Bearer ${room.tokens.annotator}`, 'content-type': 'application/octet-stream' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { id: string } }));
      res.on('error', reject);
    });
    req.on('error', reject);
    pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), req).catch(reject);
  });
}

async function ingest(b: Bench, path: string, title: string): Promise<Ingest> {
  const before = b.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, b.rss())), 20);
  const started = performance.now();
  const { status, body } = await upload(b, path, title);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, b.rss());
  if (status !== 201) throw new Error(`${title}: ${status} ${JSON.stringify(body)}`);
  const get = async (what: string) => (await fetch(`${b.server.url}/api/rooms/${b.room.id}/documents/${body.id}/trace/${what}`, { headers: { authorization: `Bearer ${b.room.tokens.viewer}` } })).json();
  const summary = (await get('summary')) as { events: number };
  return { seconds, rssGrowthMb: peak - before, ops: (await get('ops')) as OpAggregate[], events: summary.events };
}

const warmUpPath = fileURLToPath(new URL('../fixtures/trace/mlp.xplane.pb', import.meta.url));

/** One format's ingest on a fresh server, after the warm-up upload that starts its reduce worker. */
async function measure(path: string, title: string): Promise<Ingest> {
  const b = await startBench();
  try {
    const warmUp = await ingest(b, warmUpPath, 'warm-up.xplane.pb');
    console.log(`${title}: the first upload (the real CPU capture's xplane.pb, ${warmUp.events} events), which starts the reduce worker, took ${(warmUp.seconds * 1000).toFixed(0)} ms`);
    return await ingest(b, path, title);
  } finally {
    await b.server.close();
  }
}

type OpRow = { module: string; op: string; count: number; totalUs: number };

/** Whether an op table has every op written, with its count and its total within 1%; `byName` when it does not know modules. */
function agrees(ops: readonly OpRow[], byName = false): 'yes' | 'NO' {
  const key = (o: OpRow) => (byName ? o.op : `${o.module}\u0000${o.op}`);
  const want = new Map<string, { count: number; totalUs: number }>();
  for (const w of written.ops.values()) {
    const s = want.get(key(w)) ?? { count: 0, totalUs: 0 };
    want.set(key(w), { count: s.count + w.count, totalUs: s.totalUs + w.totalUs });
  }
  const ok = ops.length === want.size && ops.every((o) => {
    const w = want.get(key(o));
    return w !== undefined && w.count === o.count && Math.abs(w.totalUs - o.totalUs) <= 0.01 * w.totalUs;
  });
  return ok ? 'yes' : 'NO';
}

const [jsonBytes, gzBytes, xplaneBytes] = [size(jsonPath), size(gzPath), size(xplanePath)];
const seam = {
  json: await measure(jsonPath, 'trace.json'),
  gz: await measure(gzPath, 'trace.json.gz'),
  xplane: await measure(xplanePath, 'trace.xplane.pb'),
};

interface RefOps { ops: { module: string; op: string; count: number; totalUs: number }[]; events: number; seconds: number }
t = performance.now();
const python = JSON.parse((await run(venvPython(), [TRACE_REFERENCE_SCRIPT, 'json', jsonPath], { maxBuffer: 256 * MB })).stdout) as RefOps & { loadSeconds: number };
const xprof = JSON.parse((await run(venv.python, [TRACE_REFERENCE_SCRIPT, 'xplane', xplanePath], { maxBuffer: 256 * MB })).stdout) as {
  reader: RefOps; traceViewer: RefOps; opProfile: { seconds: number; deviceType?: string; programs: number };
};
console.log(`references ran in ${((performance.now() - t) / 1000).toFixed(1)} s`);
rmSync(dir, { recursive: true, force: true });

const mbps = (bytes: number, s: number) => bytes / MB / s;
printTable(`Trace ingest, ${EVENTS.toLocaleString('en-US')} events (${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`,
  ['what', 'MB in', 'events', 's', 'MB/s of JSON', 'server RSS growth MB', 'op table agrees', 'Seam faster ×'],
  [
    ['Seam, Perfetto JSON upload', jsonBytes / MB, seam.json.events, seam.json.seconds, mbps(jsonBytes, seam.json.seconds), seam.json.rssGrowthMb, agrees(seam.json.ops), '-'],
    ['Seam, the JSON gzipped', gzBytes / MB, seam.gz.events, seam.gz.seconds, mbps(jsonBytes, seam.gz.seconds), seam.gz.rssGrowthMb, agrees(seam.gz.ops), '-'],
    ['Seam, xplane.pb upload', xplaneBytes / MB, seam.xplane.events, seam.xplane.seconds, mbps(jsonBytes, seam.xplane.seconds), seam.xplane.rssGrowthMb, agrees(seam.xplane.ops), '-'],
    ['Python json.load + per-op sums (JSON)', jsonBytes / MB, python.events, python.seconds, mbps(jsonBytes, python.seconds), '-', agrees(python.ops), (python.seconds / seam.json.seconds).toFixed(2)],
    ['XProf ProfileData reader (xplane.pb)', xplaneBytes / MB, xprof.reader.events, xprof.reader.seconds, mbps(jsonBytes, xprof.reader.seconds), '-', agrees(xprof.reader.ops, true), (xprof.reader.seconds / seam.xplane.seconds).toFixed(2)],
    ['XProf trace_viewer conversion (xplane.pb)', xplaneBytes / MB, xprof.traceViewer.events, xprof.traceViewer.seconds, mbps(jsonBytes, xprof.traceViewer.seconds), '-', agrees(xprof.traceViewer.ops), (xprof.traceViewer.seconds / seam.xplane.seconds).toFixed(2)],
  ]);
console.log(`\nGoal: >= 50 MB/s of JSON, <= 300 MB of server RSS growth. XProf's op profile: ${xprof.opProfile.programs} programs (device type ${xprof.opProfile.deviceType ?? 'none given'}) in ${xprof.opProfile.seconds.toFixed(2)} s.`);
console.log(`XProf's trace viewer keeps at most 1,000,000 events per view (MaybeDropEventsForTraceViewer drops those past it); its conversion returned ${xprof.traceViewer.events.toLocaleString('en-US')} trace events (metadata included) for ${EVENTS.toLocaleString('en-US')}. Seam's event windows downsample a range instead.`);
console.log('Time to first timeline paint and pan/zoom frames: measured by the trace view\'s benchmark, not here.');
