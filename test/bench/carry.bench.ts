import { existsSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { carryDocument, diffModules } from '@seam/shared/ir';
import { DocumentKind, quoteOf, type Annotation } from '@seam/shared/model';
import { printTable, quantile } from './table';

/**
 * Carrying annotations over ("Run again"): `carryDocument` with `MAX_CARRIED` (1,000) annotations
 * spread over the first of two ~25 MB optimized HLO dumps of a 32-layer transformer, carried to
 * the second (layer 16's MLP wider), against the reference: `diffModules` alone on the same pair,
 * the structural diff carrying builds on. The dumps are the diff benchmark's (`npm run bench diff`
 * writes them into the OS temp folder first). Best and median of RUNS after one warm-up.
 */
const RUNS = 3;
const COUNT = 1000;
const dir = join(tmpdir(), 'seam-diff-bench');
const fileA = join(dir, 'a.txt');
const fileB = join(dir, 'b.txt');
if (!existsSync(fileA) || !existsSync(fileB)) throw new Error(`no dumps in ${dir}: run \`npm run bench diff\` first, which compiles them`);
const textA = readFileSync(fileA, 'utf8');
const textB = readFileSync(fileB, 'utf8');
console.log(`A: ${fileA} (${(statSync(fileA).size / 1e6).toFixed(1)} MB), B: ${fileB}`);
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);

// One note on the instruction name of every n-th instruction line of A.
const lines = textA.split('\n');
const starts: number[] = [];
let at = 0;
for (const l of lines) {
  starts.push(at);
  at += l.length + 1;
}
const instr = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s+(ROOT )?%\S+ = /.test(l));
const step = Math.max(1, Math.floor(instr.length / COUNT));
const notes: Annotation[] = instr.filter((_, k) => k % step === 0).slice(0, COUNT).map(([l, i], k) => {
  const m = /%\S+/.exec(l) as RegExpExecArray;
  const from = (starts[i] as number) + m.index;
  return {
    id: `n${k}`, docId: 'a', from, to: from + m[0].length, quote: quoteOf(textA, from, from + m[0].length), kind: 'note', body: 'b',
    author: { id: 'u', name: 'U', color: '#000000' }, createdAt: k, resolved: false, replies: [],
  };
});

const seconds = (f: () => void): number => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e9;
};
let ids = 0;
const ctx = { docId: 'b', captureId: 'cap_a', newId: () => `c${++ids}` };
let carried = carryDocument(textA, textB, DocumentKind.hloOpt, notes, ctx);
diffModules(textA, textB);
const ours: number[] = [];
const ref: number[] = [];
for (let i = 0; i < RUNS; i++) {
  globalThis.gc?.();
  ours.push(seconds(() => (carried = carryDocument(textA, textB, DocumentKind.hloOpt, notes, ctx))));
  globalThis.gc?.();
  ref.push(seconds(() => diffModules(textA, textB)));
}
printTable(`carrying ${notes.length} annotations across two 25 MB optimized HLO dumps, wall clock seconds`, ['measure', 'carryDocument', 'diffModules', 'ratio'], [
  ['best', Math.min(...ours), Math.min(...ref), Math.min(...ours) / Math.min(...ref)],
  ['median', quantile(ours, 0.5), quantile(ref, 0.5), quantile(ours, 0.5) / quantile(ref, 0.5)],
]);
const detached = carried.filter((a) => a.carried?.detached).length;
const same = carried.filter((a, k) => !a.carried?.detached && textB.slice(a.from, a.to) === notes[k]?.quote.exact).length;
printTable('what was carried', ['measure', 'value'], [
  ['annotations', carried.length],
  ['placed on the same instruction name', same],
  ['placed elsewhere (renamed or whole line)', carried.length - detached - same],
  ['detached', detached],
]);
