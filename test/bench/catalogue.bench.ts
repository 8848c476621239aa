import { readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { analyze, catalogue, layerCard, readShardings } from '@seam/shared/ir';
import { DocumentKind } from '@seam/shared/model';
import { largeDumps } from './large-dumps';
import { printTable, quantile } from './table';

/**
 * Operator catalogue benchmark on a ~25 MB optimized HLO dump of a 32-layer transformer's training
 * step (see `large-dumps.ts`): the catalogue from the index alone, the catalogue with the dump's
 * text (casts' source dtypes, StableHLO targets, and the shardings carried as attributes), and the
 * sharding scan alone, against the reference the catalogue always follows: indexing the same dump
 * (`analyze`). Best and median of RUNS after one warm-up, wall clock.
 */
const RUNS = 5;

function seconds(f: () => void): number {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const { a: file } = largeDumps();
const text = readFileSync(file, 'utf8');
console.log(`${file} (${(statSync(file).size / 1e6).toFixed(1)} MB, ${text.split('\n').length.toLocaleString('en-US')} lines)`);
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);

let index = analyze(text, DocumentKind.hloOpt).index;
const layer = () => ({ layer: 'hlo-opt' as const, index });
let entries = catalogue([{ ...layer(), text }]);
let shardings = readShardings('hlo-opt', text);
const cases = {
  'index (analyze), the reference': () => (index = analyze(text, DocumentKind.hloOpt).index),
  'catalogue, index alone': () => catalogue([layer()]),
  'catalogue with the text': () => (entries = catalogue([{ ...layer(), text }])),
  'sharding attributes alone': () => (shardings = readShardings('hlo-opt', text)),
  'card': () => layerCard([layer()]),
};
const times: Record<string, number[]> = {};
for (let i = 0; i < RUNS; i++) {
  for (const [name, f] of Object.entries(cases)) {
    globalThis.gc?.();
    (times[name] ??= []).push(seconds(f));
  }
}
const ref = times['index (analyze), the reference'] ?? [];
printTable('operator catalogue of a 25 MB optimized dump, wall clock seconds', ['step', 'best', 'median', 'ratio to index (best)'], Object.entries(times).map(([name, t]) => [name, Math.min(...t), quantile(t, 0.5), Math.min(...t) / Math.min(...ref)]));
printTable('what the catalogue found', ['measure', 'value'], [
  ['entries', entries.length],
  ['sharding attributes', shardings.length],
  ['sites', entries.reduce((n, e) => n + Object.values(e.layers).reduce((m, o) => m + o.count, 0), 0)],
]);
