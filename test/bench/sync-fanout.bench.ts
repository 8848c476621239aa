import { fileURLToPath } from 'node:url';
import { printTable } from './table';
import { benchDumpText } from './sync/annotations';
import type { FanoutConfig, FanoutResult } from './sync/fanout-load';
import { forkLoad } from './sync/ipc';
import { QUICK, closeList, ratio, summarize, verdict } from './sync/report';
import { measureAll } from './sync/targets';

/**
 * Fan-out: one room, many stock clients, one writer adding annotations at a steady rate; delivery
 * latency over every (annotation, reader) pair, and write→ack where the server acknowledges.
 * Goal: Seam's p99 no worse than the reference's while Seam persists every update.
 */
const scale = QUICK ? { readers: 20, annotations: 200, perSecond: 100 } : { readers: 100, annotations: 2000, perSecond: 100 };
const ROUNDS = 2;
const script = fileURLToPath(new URL('./sync/fanout-load.ts', import.meta.url));

console.log(`fan-out: ${scale.readers} stock readers + 1 writer in one room, ${scale.annotations} annotations at ${scale.perSecond}/s, ` +
  `${ROUNDS} runs per server${QUICK ? ' (quick)' : ''}`);
const results = await measureAll(ROUNDS, async (server) => {
  const room = await server.createRoom('fan-out benchmark', benchDumpText());
  const load = forkLoad<FanoutConfig, FanoutResult>(script, { syncUrl: server.syncUrl, room, ...scale, acks: server.acks, drainMs: 30_000 });
  try {
    await load.ready;
    load.go();
    return await load.result;
  } finally {
    load.kill();
  }
});

const row = (name: string, runs: readonly FanoutResult[]) => {
  const d = summarize(runs.flatMap((r) => r.latencies));
  const a = summarize(runs.flatMap((r) => r.ackLatencies));
  const sum = (f: (r: FanoutResult) => number) => runs.reduce((s, r) => s + f(r), 0);
  return [name, d.count, sum((r) => r.missing), d.p50, d.p99, d.max, a.count > 0 ? a.p50 : '-', a.count > 0 ? a.p99 : '-', sum((r) => r.unacknowledged),
    runs.map((r) => (scale.annotations / r.writeSeconds).toFixed(0)).join('/'), runs.map((r) => r.load.cpuPercent.toFixed(0)).join('/'),
    runs.map((r) => r.load.loopDelayP99.toFixed(1)).join('/'), closeList(runs.flatMap((r) => r.closes))];
};
const rows = [...results].flatMap(([name, runs]) => [...runs.map((r, i) => row(`${name} #${i + 1}`, [r])), row(`${name} (all)`, runs)]);
printTable('delivery latency (ms), write → every reader', ['server', 'deliveries', 'missing', 'p50', 'p99', 'max', 'ack p50', 'ack p99', 'unacked',
  'writes/s', 'load cpu%', 'load lag p99 ms', 'closes'], rows);

const pooled = (name: string) => {
  const runs = results.get(name) ?? [];
  return runs.length > 0 ? summarize(runs.flatMap((r) => r.latencies)) : undefined;
};
const [seam, ref] = [pooled('seam'), pooled('reference')];
const r99 = ratio(seam?.p99, ref?.p99);
console.log(`\nratio seam/reference (all runs): p50 ${ratio(seam?.p50, ref?.p50)}, p99 ${r99}, max ${ratio(seam?.max, ref?.max)}`);
console.log(`goal p99 ratio ≤ 1.0: ${r99 === 'n/a' ? 'n/a' : verdict(Number(r99) <= 1)}`);

const broken = [...results].filter(([, runs]) => runs.some((r) => r.missing > 0 || r.unacknowledged > 0 || r.closes.length > 0));
for (const [name] of broken) console.error(`${name}: deliveries missing, writes unacknowledged or sockets closed by the server (see the table)`);
process.exit(broken.length === 0 ? 0 : 1);
