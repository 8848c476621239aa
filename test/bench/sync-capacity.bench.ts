import { fileURLToPath } from 'node:url';
import { printTable, quantile } from './table';
import { benchDumpText } from './sync/annotations';
import type { CapacityConfig, CapacityResult } from './sync/capacity-load';
import { forkLoad } from './sync/ipc';
import { ProcessSampler, rssBytes, type ProcessUsage } from './sync/proc-stats';
import { QUICK, closeList, mb, ratio, saturation, summarize, verdict } from './sync/report';
import type { BenchRoom } from './sync/servers';
import { measureAll } from './sync/targets';

/**
 * Capacity: many rooms of a few clients each, a steady total write rate for a while; the server's
 * RSS and CPU (from /proc) and the delivery latency p99. Goals: Seam's p99 / the reference's p99 in
 * the same round ≤ 1.0 at the median of five rounds (an absolute p99 swings with the shared
 * machine as much for one server as for the other), RSS ≤ 600 MB. The clients are lean protocol
 * clients (`sync/lean-client.ts`: the stock client's messages without its replica), split over
 * load processes, each holding whole rooms.
 */
const scale = QUICK
  ? { rooms: 50, clientsPerRoom: 4, perSecond: 40, seconds: 5, processes: 2 }
  : { rooms: 500, clientsPerRoom: 4, perSecond: 400, seconds: 60, processes: 2 };
/** Five rounds in ABBA order: the machine getting busier or quieter weighs on both servers alike. */
const ROUNDS = QUICK ? 1 : 5;
/** Goal: the median over the rounds of Seam's p99 / the reference's p99. */
const GOAL_P99_RATIO = 1.0;
const GOAL_RSS = 600 * 1024 * 1024;
const script = fileURLToPath(new URL('./sync/capacity-load.ts', import.meta.url));

interface Outcome {
  readonly idleRss: number;
  readonly usage: ProcessUsage;
  readonly parts: CapacityResult[];
}

console.log(`capacity: ${scale.rooms * scale.clientsPerRoom} lean protocol clients over ${scale.rooms} rooms in ${scale.processes} load processes, ` +
  `${scale.perSecond} updates/s in total for ${scale.seconds} s, ${ROUNDS} runs per server${QUICK ? ' (quick)' : ''}`);
const results = await measureAll(ROUNDS, async (server): Promise<Outcome> => {
  const text = benchDumpText();
  const rooms: BenchRoom[] = [];
  for (let i = 0; i < scale.rooms; i += 1) rooms.push(await server.createRoom(`capacity ${i}`, text));
  const loads = Array.from({ length: scale.processes }, (_, p) =>
    forkLoad<CapacityConfig, CapacityResult>(script, {
      syncUrl: server.syncUrl,
      rooms: rooms.filter((_, i) => i % scale.processes === p),
      clientsPerRoom: scale.clientsPerRoom,
      perSecond: scale.perSecond / scale.processes,
      seconds: scale.seconds,
      drainMs: 15_000,
    }),
  );
  try {
    await Promise.all(loads.map((l) => l.ready));
    const idleRss = rssBytes(server.pid);
    const sampler = new ProcessSampler(server.pid);
    for (const l of loads) l.go();
    const parts = await Promise.all(loads.map((l) => l.result));
    return { idleRss, usage: sampler.stop(), parts };
  } finally {
    for (const l of loads) l.kill();
  }
});
const latency = (o: Outcome) => summarize(o.parts.flatMap((p) => p.latencies));
/** One server's runs together: latencies pooled, the largest RSS, the mean CPU. */
const pooled = (name: string) => {
  const runs = results.get(name) ?? [];
  if (runs.length === 0) return undefined;
  return {
    p99: summarize(runs.flatMap((o) => o.parts.flatMap((p) => p.latencies))).p99,
    maxRss: Math.max(...runs.map((o) => o.usage.maxRss)),
    cpuPercent: runs.reduce((sum, o) => sum + o.usage.cpuPercent, 0) / runs.length,
  };
};
const rows = [...results].flatMap(([name, runs]) => runs.map((o) => {
  const l = latency(o);
  const sum = (f: (p: CapacityResult) => number) => o.parts.reduce((s, p) => s + f(p), 0);
  return [name, sum((p) => p.writes), l.count, sum((p) => p.missing), l.p50, l.p99, l.max, mb(o.idleRss), mb(o.usage.maxRss),
    o.usage.cpuPercent.toFixed(0), o.parts.map((p) => p.load.cpuPercent.toFixed(0)).join('/'),
    o.parts.map((p) => `${p.load.loopDelayP99.toFixed(0)}/${p.load.loopDelayMax.toFixed(0)}`).join(' '), closeList(o.parts.flatMap((p) => p.closes))];
}));
printTable('delivery latency (ms), server RSS (MB) and CPU (% of one core)', ['server', 'writes', 'deliveries', 'missing', 'p50', 'p99', 'max',
  'RSS idle', 'RSS max', 'server cpu%', 'load cpu%', 'load lag p99/max ms', 'closes'], rows);

const [ref, seam] = [pooled('reference'), pooled('seam')];
console.log(`\nratio seam/reference (all runs pooled): p99 ${ratio(seam?.p99, ref?.p99)}, RSS max ${ratio(seam?.maxRss, ref?.maxRss)}, ` +
  `CPU ${ratio(seam?.cpuPercent, ref?.cpuPercent)}`);
console.log('note: when a load process stalled, its run\'s latency max is about that stall (load lag max): compare the two columns before the servers');
const rounds = Array.from({ length: ROUNDS }, (_, i) => {
  const [r, s] = [results.get('reference')?.[i], results.get('seam')?.[i]];
  return { reference: r && latency(r).p99, seam: s && latency(s).p99 };
});
const ratios = rounds.map((r) => (r.seam !== undefined && r.reference ? r.seam / r.reference : NaN));
printTable('p99 per round (ms), Seam against the reference in the same round', ['round', 'reference p99', 'seam p99', 'seam / reference'],
  rounds.map((r, i) => [String(i + 1), r.reference ?? NaN, r.seam ?? NaN, (ratios[i] ?? NaN).toFixed(2)]));
const median = quantile(ratios, 0.5);
console.log(`\ngoal: p99 seam / reference ≤ ${GOAL_P99_RATIO.toFixed(1)} at the median of ${ROUNDS} rounds: ${median.toFixed(2)}, ${verdict(median <= GOAL_P99_RATIO)}`);
for (const [name, runs] of results) {
  for (const o of runs) console.log(`goal (${name}): RSS ≤ 600 MB ${verdict(o.usage.maxRss <= GOAL_RSS)}`);
}
for (const [name, runs] of results) {
  const warning = saturation(name, runs.flatMap((o) => o.parts.map((p) => p.load)));
  if (warning) console.log(warning);
}

const broken = [...results].filter(([, runs]) => runs.some((o) => o.parts.some((p) => p.missing > 0 || p.mismatched > 0 || p.closes.length > 0)));
for (const [name] of broken) console.error(`${name}: deliveries missing or wrong, or sockets closed by the server (see the table)`);
process.exit(broken.length === 0 ? 0 : 1);
