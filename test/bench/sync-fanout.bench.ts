import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { printTable, quantile } from './table';
import { benchDumpText } from './sync/annotations';
import type { FanoutConfig, FanoutResult } from './sync/fanout-load';
import { forkLoad } from './sync/ipc';
import type { LoadProcessUsage } from './sync/load-meter';
import { ProcessSampler, type ProcessUsage } from './sync/proc-stats';
import { QUICK, closeList, mb, ratio, saturation, summarize, verdict } from './sync/report';
import { measureAll } from './sync/targets';

/**
 * Fan-out: one room, many stock clients, one writer adding annotations at a steady rate; delivery
 * latency over every (annotation, reader) pair, and write→ack where the server acknowledges.
 * Goal: Seam's p99 no worse than the reference's while Seam persists every update. The readers
 * are split over load processes (the writer in the first), so that applying every update in
 * every reader does not queue behind one event loop.
 */
const scale = QUICK ? { readers: 20, annotations: 200, perSecond: 100, parts: 2 } : { readers: 100, annotations: 2000, perSecond: 100, parts: 4 };
const ROUNDS = QUICK ? 1 : 4;
const script = fileURLToPath(new URL('./sync/fanout-load.ts', import.meta.url));

/** One run, its shares' results joined. */
interface Run {
  readonly latencies: number[];
  readonly missing: number;
  readonly acks: number[];
  readonly unacknowledged: number;
  readonly writesPerSecond: number;
  readonly closes: number[];
  readonly loads: LoadProcessUsage[];
  readonly server: ProcessUsage;
}

function join(parts: readonly FanoutResult[], server: ProcessUsage): Run {
  const writer = parts.find((p) => p.sent.length > 0);
  const sent = writer?.sent ?? [];
  const latencies: number[] = [];
  let missing = 0;
  for (const part of parts) {
    for (const arrivals of part.arrivals) {
      arrivals.forEach((t, n) => {
        if (t < 0) missing += 1;
        else latencies.push(t - (sent[n] ?? NaN));
      });
    }
  }
  return {
    latencies,
    missing,
    acks: writer?.ackLatencies ?? [],
    unacknowledged: writer?.unacknowledged ?? 0,
    writesPerSecond: writer ? scale.annotations / writer.writeSeconds : NaN,
    closes: parts.flatMap((p) => p.closes),
    loads: parts.map((p) => p.load),
    server,
  };
}

console.log(`fan-out: ${scale.readers} stock readers in ${scale.parts} load processes + 1 writer in its own, one room, ` +
  `${scale.annotations} annotations at ${scale.perSecond}/s, ${ROUNDS} runs per server${QUICK ? ' (quick)' : ''}`);
const results = await measureAll(ROUNDS, async (server): Promise<Run> => {
  const room = await server.createRoom('fan-out benchmark', benchDumpText());
  const prefix = randomUUID();
  const loads = ['writer' as const, ...Array.from({ length: scale.parts }, (_, part) => part)].map((part) =>
    forkLoad<FanoutConfig, FanoutResult>(script, { syncUrl: server.syncUrl, room, ...scale, part, prefix, acks: server.acks, drainMs: 30_000 }));
  try {
    await Promise.all(loads.map((l) => l.ready));
    const sampler = new ProcessSampler(server.pid);
    for (const l of loads) l.go();
    const parts = await Promise.all(loads.map((l) => l.result));
    return join(parts, sampler.stop());
  } finally {
    for (const l of loads) l.kill();
  }
});

const row = (name: string, runs: readonly Run[]) => {
  const d = summarize(runs.flatMap((r) => r.latencies));
  const a = summarize(runs.flatMap((r) => r.acks));
  const sum = (f: (r: Run) => number) => runs.reduce((s, r) => s + f(r), 0);
  const loads = runs.flatMap((r) => r.loads);
  return [name, d.count, sum((r) => r.missing), d.p50, d.p99, d.max, a.count > 0 ? a.p50 : '-', a.count > 0 ? a.p99 : '-', sum((r) => r.unacknowledged),
    runs.map((r) => r.server.cpuSeconds.toFixed(1)).join('/'), runs.map((r) => mb(r.server.maxRss)).join('/'),
    runs.map((r) => r.writesPerSecond.toFixed(0)).join('/'), loads.map((l) => l.cpuPercent.toFixed(0)).join('/'),
    loads.map((l) => `${l.loopDelayP99.toFixed(0)}/${l.loopDelayMax.toFixed(0)}`).join(' '), closeList(runs.flatMap((r) => r.closes))];
};
const rows = [...results].flatMap(([name, runs]) => [...runs.map((r, i) => row(`${name} #${i + 1}`, [r])), row(`${name} (all)`, runs)]);
printTable('delivery latency (ms), write → every reader', ['server', 'deliveries', 'missing', 'p50', 'p99', 'max', 'ack p50', 'ack p99', 'unacked',
  'server cpu s', 'server RSS MB', 'writes/s', 'load cpu%', 'load lag p99/max ms', 'closes'], rows);

const pooled = (name: string) => {
  const runs = results.get(name) ?? [];
  return runs.length > 0 ? summarize(runs.flatMap((r) => r.latencies)) : undefined;
};
const [seam, ref] = [pooled('seam'), pooled('reference')];
const r99 = ratio(seam?.p99, ref?.p99);
console.log(`\nratio seam/reference (all runs): p50 ${ratio(seam?.p50, ref?.p50)}, p99 ${r99}, max ${ratio(seam?.max, ref?.max)}`);
console.log(`goal p99 ratio ≤ 1.0: ${r99 === 'n/a' ? 'n/a' : verdict(Number(r99) <= 1)}`);
// One starved run dominates the pooled p99; the median of the runs' p99s shows whether it is one run or all.
const runP99s = (name: string) => (results.get(name) ?? []).map((r) => summarize(r.latencies).p99);
const median = (xs: readonly number[]) => quantile(xs, 0.5);
console.log(`p99 per run (ms): reference ${runP99s('reference').map((x) => x.toFixed(0)).join(' / ')}, seam ${runP99s('seam').map((x) => x.toFixed(0)).join(' / ')}; ` +
  `ratio of the medians ${ratio(median(runP99s('seam')), median(runP99s('reference')))}`);
const cpu = (name: string) => (results.get(name) ?? []).reduce((s, r) => s + r.server.cpuSeconds, 0);
console.log(`server CPU seconds for the same work, seam/reference: ${ratio(cpu('seam'), cpu('reference'))}`);
for (const [name, runs] of results) {
  const warning = saturation(name, runs.flatMap((r) => r.loads));
  if (warning) console.log(warning);
}

const broken = [...results].filter(([, runs]) => runs.some((r) => r.missing > 0 || r.unacknowledged > 0 || r.closes.length > 0));
for (const [name] of broken) console.error(`${name}: deliveries missing, writes unacknowledged or sockets closed by the server (see the table)`);
process.exit(broken.length === 0 ? 0 : 1);
