import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRoom, startTestServer, type TestServer } from '../helpers';
import { printTable } from './table';

/**
 * `npm run bench import`: a generated dump folder of 2,000 files and about 500 MB (500 jit modules,
 * each HLO before and after optimization and two per-pass dumps, every file real HLO text from the
 * corpus, modules renamed so that no two files share content) brought into a room of a fresh
 * server in a child process, two ways: `seam push` (hash, ask, stage each file, commit the
 * manifest) and, as the floor, `tar czf - | curl -T -` of the same folder to the same import
 * endpoint (one streamed archive). Each run: wall time from start to the command's exit (the
 * import committed: every file indexed and listed), MB/s of the folder, and the server's peak
 * RSS growth. Goals: push ≤ 1.5× the floor, RSS growth ≤ 300 MB.
 */
const FILES = Number(process.env.BENCH_IMPORT_FILES ?? 2000);
const TOTAL_BYTES = Number(process.env.BENCH_IMPORT_BYTES ?? 500e6);
const MB = 1e6;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CORPUS = join(ROOT, 'test/fixtures/corpus/hlo');

/** The corpus's whole HLO modules (headed by `HloModule`), up to 64 KB each so that files come out near their share of the bytes. */
const modules = readdirSync(CORPUS).sort().map((f) => readFileSync(join(CORPUS, f), 'utf8')).filter((t) => /^HloModule /.test(t) && t.length <= 64 * 1024);

/** Writes the folder: per module i, 4 files of whole corpus modules, each renamed `<name>_f<file>_<k>`, up to the file's share of the bytes. */
function writeFolder(dir: string, salt: string): number {
  mkdirSync(dir, { recursive: true });
  const per = TOTAL_BYTES / FILES;
  let total = 0;
  let next = 0;
  for (let f = 0; f < FILES; f++) {
    const m = Math.floor(f / 4);
    const name = ['before_optimizations', 'cpu_after_optimizations', '0012.simplification.after_algsimp.before_dce', '0031.copy-insertion.after_adding_copies_to_resolve_interference'][f % 4];
    const parts: string[] = [];
    let bytes = 0;
    for (let k = 0; bytes < per; k++) {
      const text = modules[next++ % modules.length]!.replace(/^HloModule ([\w.-]+)/, `HloModule $1_${salt}f${f}_${k}`);
      parts.push(text);
      bytes += Buffer.byteLength(text);
    }
    const body = parts.join('\n');
    writeFileSync(join(dir, `module_${String(m).padStart(4, '0')}.jit_step_${m}.${name}.txt`), body);
    total += Buffer.byteLength(body);
  }
  return total;
}

/** Runs a command to its exit; rejects on a non-zero status with its output. */
function run(cmd: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited with ${code}: ${out.slice(-2000)}`))));
  });
}

interface Result { seconds: number; rssGrowthMb: number; documents: number; output: string }

/** One way in: a fresh server (child process), one room, `bring(link, room url)`, timed and with the server's RSS sampled. */
async function measure(bring: (s: TestServer, link: string, imports: string, token: string) => Promise<string>): Promise<Result> {
  const server = await startTestServer({ child: true, env: { SEAM_DOCUMENTS_PER_ROOM: String(FILES * 2), SEAM_ROOM_DOCUMENT_BYTES: String(4 * TOTAL_BYTES), SEAM_LOG_LEVEL: 'warn' } });
  try {
    const room = await createRoom(server, 'import bench');
    const pid = server.child!.pid!;
    const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
    const started = performance.now();
    const output = await bring(server, room.links.annotator, `${server.url}/api/rooms/${room.id}/imports`, room.tokens.annotator);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    const listed = await fetch(`${server.url}/api/rooms/${room.id}`, { headers: { authorization: `Bearer ${room.tokens.viewer}` } });
    const documents = ((await listed.json()) as { documents: unknown[] }).documents.length;
    return { seconds, rssGrowthMb: peak - before, documents, output };
  } finally {
    await server.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'seam-bench-import-'));
try {
  let t = performance.now();
  // Two folders of the same shape and distinct content, so neither run finds the other's blobs.
  const pushBytes = writeFolder(join(dir, 'push', 'dump'), 'p');
  const floorBytes = writeFolder(join(dir, 'floor', 'dump'), 't');
  console.log(`generated 2 × ${FILES} files (${(pushBytes / MB).toFixed(1)} / ${(floorBytes / MB).toFixed(1)} MB) from ${modules.length} corpus modules in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const floor = await measure((_s, _link, imports, token) =>
    run('bash', ['-c', `set -o pipefail; tar czf - -C "${join(dir, 'floor')}" dump | curl -sS --fail-with-body -T - -X POST -H "authorization: Bearer ${token}" -H "content-type: application/gzip" "${imports}"`]));
  const push = await measure((_s, link) => run(process.execPath, [join(ROOT, 'server/bin/seam.js'), 'push', link, join(dir, 'push', 'dump')]));
  t = performance.now();
  if (push.documents !== FILES || floor.documents !== FILES) throw new Error(`expected ${FILES} documents each, got push ${push.documents}, floor ${floor.documents}: ${push.output.slice(-500)} ${floor.output.slice(-500)}`);

  const mbps = (bytes: number, s: number) => bytes / MB / s;
  printTable(`Import of a ${FILES}-file dump folder (${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`,
    ['way in', 'files', 'MB', 's', 'MB/s', 'server RSS growth MB', '× the floor'], [
      ['seam push', push.documents, pushBytes / MB, push.seconds, mbps(pushBytes, push.seconds), push.rssGrowthMb, (push.seconds / floor.seconds).toFixed(2)],
      ['floor: tar czf | curl -T - (same endpoint)', floor.documents, floorBytes / MB, floor.seconds, mbps(floorBytes, floor.seconds), floor.rssGrowthMb, '1.00'],
    ]);
  console.log(`\nGoals: seam push <= 1.5x the floor (${(push.seconds / floor.seconds).toFixed(2)}x), server RSS growth <= 300 MB (push ${push.rssGrowthMb.toFixed(0)} MB, floor ${floor.rssGrowthMb.toFixed(0)} MB).`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
