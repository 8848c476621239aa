import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffModules, type ModuleDiff } from '@seam/shared/ir';
import { diffInThreads, startSideThread } from '../../server/src/cli/diff-threads';
import { largeDumps, WIDE_LAYER } from './large-dumps';
import { printTable, quantile } from './table';

/**
 * Module diff benchmark: `seam diff`'s core (`diffInThreads`: index both dumps, B in a worker thread
 * while this one reads A, then match, fusions, spills) on two ~25 MB optimized HLO dumps of one training step of a
 * 32-layer transformer (`runners/python/gen_large_hlo.py`'s model, layers unrolled) that differ in
 * one place: layer 16's MLP is 1,536 wide instead of 1,024. The reference is XLA's `hlo-diff` when
 * the installed jaxlib ships one, else `diff -u` of the same two files, the floor a plain text
 * diff sets. The dumps are compiled once into the OS temp folder (about a minute each) and reused
 * (see `large-dumps.ts`).
 * Best and median of RUNS after one warm-up, wall clock; also the best CPU time of seam diff's
 * process, since this machine is shared and under load the wall clock mostly measures the wait.
 * The same diff read in one thread (`diffModules`) is timed in the same rounds, alternating, to show
 * what the second thread gives on this machine now; the two must find the same diff. The reading
 * thread is started once and kept, so the warm-up warms its code as it does this thread's (a fresh
 * thread's start and cold first reading are timed apart, once, after the runs).
 */
const RUNS = 5;
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** XLA's hlo-diff, if the installed jaxlib or the virtualenv ships it as a program. */
function findHloDiff(): string | undefined {
  const venv = join(repo, 'runners', '.venv');
  const dirs = [join(venv, 'bin')];
  const lib = join(venv, 'lib');
  if (existsSync(lib)) for (const py of readdirSync(lib)) dirs.push(join(lib, py, 'site-packages', 'jaxlib'));
  for (const d of dirs) {
    if (!existsSync(d)) continue;
    const hit = readdirSync(d).find((f) => /^hlo[-_]diff(?:\.exe)?$/.test(f));
    if (hit) return join(d, hit);
  }
  return undefined;
}

function seconds(f: () => void): number {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

/** What a timed diff leaves: its times, its summary, and a digest of the whole diff to compare (the diff itself is dropped). */
interface Timed {
  readonly wall: number;
  readonly cpu: number;
  readonly digest: string;
  readonly diff: Pick<ModuleDiff, 'summary'> & { readonly a: { readonly instructions: number }; readonly b: { readonly instructions: number } };
}

/**
 * Wall clock and CPU time (all threads of this process) of one diff. Nothing of earlier diffs is
 * held while one is timed, as in a `seam diff` process: a held diff of 10^5 pairs would make every
 * garbage collection of the next one slower.
 */
async function timed(f: () => Promise<ModuleDiff> | ModuleDiff): Promise<Timed> {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const t = process.hrtime.bigint();
  const diff = await f();
  const wall = Number(process.hrtime.bigint() - t) / 1e9;
  const used = process.cpuUsage(cpu);
  const digest = createHash('sha256').update(JSON.stringify(diff)).digest('hex');
  return { wall, cpu: (used.user + used.system) / 1e6, digest, diff: { summary: diff.summary, a: { instructions: diff.a.instructions }, b: { instructions: diff.b.instructions } } };
}

const { a: fileA, b: fileB } = largeDumps();
const textA = readFileSync(fileA, 'utf8');
const textB = readFileSync(fileB, 'utf8');
const mb = (n: number) => (n / 1e6).toFixed(1);
console.log(`A: ${fileA} (${mb(statSync(fileA).size)} MB, ${textA.split('\n').length.toLocaleString('en-US')} lines)`);
console.log(`B: ${fileB} (${mb(statSync(fileB).size)} MB; layer ${WIDE_LAYER}'s MLP 1,536 wide)`);
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores; uptime: ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);

const hloDiff = findHloDiff();
console.log(hloDiff ? `reference: XLA's hlo-diff at ${hloDiff}` : "reference: diff -u (the installed jaxlib ships no hlo-diff program)");
const reference = (): void => {
  // diff exits 1 when the files differ: that is its success here.
  const run = hloDiff ? spawnSync(hloDiff, [fileA, fileB], { stdio: 'ignore' }) : spawnSync('diff', ['-u', fileA, fileB], { stdio: 'ignore', maxBuffer: 1 << 30 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`reference failed: ${run.status ?? run.signal}`);
};

const side = startSideThread();
const threaded = () => diffInThreads(textA, textB, {}, side);
let last = await timed(threaded);
const single = await timed(() => diffModules(textA, textB));
const ours: number[] = [];
const oursCpu: number[] = [];
const one: number[] = [];
const oneCpu: number[] = [];
const theirs: number[] = [];
let same = last.digest === single.digest;
reference();
for (let i = 0; i < RUNS; i++) {
  // Which goes first alternates, so neither always follows the other's garbage.
  const alone0 = i % 2 === 1 ? await timed(() => diffModules(textA, textB)) : undefined;
  const threads = await timed(threaded);
  ours.push(threads.wall);
  oursCpu.push(threads.cpu);
  last = threads;
  const alone = alone0 ?? (await timed(() => diffModules(textA, textB)));
  one.push(alone.wall);
  oneCpu.push(alone.cpu);
  same &&= threads.digest === alone.digest;
  theirs.push(seconds(reference));
}
side.close();
// What `seam diff` itself pays, once per command: a thread started for the diff, its code cold.
const cold = await timed(() => diffInThreads(textA, textB));
same &&= cold.digest === last.digest;
const s = last.diff.summary;
printTable('seam diff core (diffInThreads) against the reference, wall clock seconds', ['measure', 'seam diff', 'one thread (diffModules)', hloDiff ? 'hlo-diff' : 'diff -u', 'ratio (seam diff / reference)'], [
  ['best', Math.min(...ours), Math.min(...one), Math.min(...theirs), Math.min(...ours) / Math.min(...theirs)],
  ['median', quantile(ours, 0.5), quantile(one, 0.5), quantile(theirs, 0.5), quantile(ours, 0.5) / quantile(theirs, 0.5)],
  ['best CPU time, all threads (GC helpers included)', Math.min(...oursCpu), Math.min(...oneCpu), '', ''],
  ['goal', 2, '', '', Math.min(...ours) / 2],
  ['a fresh thread for one diff, started and cold (once)', cold.wall, '', '', ''],
]);
console.log(`seam diff best / one thread best: ${(Math.min(...ours) / Math.min(...one)).toFixed(2)}; the same diff in both: ${same ? 'yes' : 'NO'}`);
if (!same) process.exitCode = 1;
printTable('what the diff found', ['measure', 'value'], [
  ['instructions A / B', `${last.diff.a.instructions} / ${last.diff.b.instructions}`],
  ['matched (not exact) / removed / added', `${s.matched} (${s.changed}) / ${s.removed} / ${s.added}`],
  ['fusions kept / formed / split / gone / added', `${s.fusions.kept} / ${s.fusions.formed} / ${s.fusions.split} / ${s.fusions.gone} / ${s.fusions.added}`],
  ['spills kept / appeared / disappeared', `${s.spills.kept} / ${s.spills.appeared} / ${s.spills.disappeared}`],
  ['traffic A / B, MB', `${mb(s.traffic.a)} / ${mb(s.traffic.b)}`],
]);
