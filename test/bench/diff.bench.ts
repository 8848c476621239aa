import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffModules } from '@seam/shared/ir';
import { largeDumps, WIDE_LAYER } from './large-dumps';
import { printTable, quantile } from './table';

/**
 * Module diff benchmark: `seam diff`'s core (`diffModules`: index both dumps, parse them for
 * operands, match, fusions, spills) on two ~25 MB optimized HLO dumps of one training step of a
 * 32-layer transformer (`runners/python/gen_large_hlo.py`'s model, layers unrolled) that differ in
 * one place: layer 16's MLP is 1,536 wide instead of 1,024. The reference is XLA's `hlo-diff` when
 * the installed jaxlib ships one, else `diff -u` of the same two files, the floor a plain text
 * diff sets. The dumps are compiled once into the OS temp folder (about a minute each) and reused
 * (see `large-dumps.ts`).
 * Best and median of RUNS after one warm-up, wall clock; also the best CPU time of seam diff's
 * process, since this machine is shared and under load the wall clock mostly measures the wait.
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

let last = diffModules(textA, textB);
const ours: number[] = [];
const oursCpu: number[] = [];
const theirs: number[] = [];
reference();
for (let i = 0; i < RUNS; i++) {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  ours.push(seconds(() => (last = diffModules(textA, textB))));
  const used = process.cpuUsage(cpu);
  oursCpu.push((used.user + used.system) / 1e6);
  theirs.push(seconds(reference));
}
const s = last.summary;
printTable('seam diff core (diffModules) against the reference, wall clock seconds', ['measure', 'seam diff', hloDiff ? 'hlo-diff' : 'diff -u', 'ratio'], [
  ['best', Math.min(...ours), Math.min(...theirs), Math.min(...ours) / Math.min(...theirs)],
  ['median', quantile(ours, 0.5), quantile(theirs, 0.5), quantile(ours, 0.5) / quantile(theirs, 0.5)],
  ['best CPU time, all threads (GC helpers included)', Math.min(...oursCpu), '', ''],
  ['goal', 2, '', Math.min(...ours) / 2],
]);
printTable('what the diff found', ['measure', 'value'], [
  ['instructions A / B', `${last.a.instructions} / ${last.b.instructions}`],
  ['matched (not exact) / removed / added', `${s.matched} (${s.changed}) / ${s.removed} / ${s.added}`],
  ['fusions kept / formed / split / gone / added', `${s.fusions.kept} / ${s.fusions.formed} / ${s.fusions.split} / ${s.fusions.gone} / ${s.fusions.added}`],
  ['spills kept / appeared / disappeared', `${s.spills.kept} / ${s.spills.appeared} / ${s.spills.disappeared}`],
  ['traffic A / B, MB', `${mb(s.traffic.a)} / ${mb(s.traffic.b)}`],
]);
