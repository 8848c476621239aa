import { fileURLToPath } from 'node:url';
import { printTable } from './table';
import { benchDumpText } from './sync/annotations';
import type { FanoutConfig, FanoutResult } from './sync/fanout-load';
import { forkLoad } from './sync/ipc';
import { QUICK, closeList, ratio, summarize, verdict } from './sync/report';
import { TARGETS, withServer } from './sync/targets';

/**
 * Fan-out: one room, many stock clients, one writer adding annotations at a steady rate; delivery
 * latency over every (annotation, reader) pair, and write→ack where the server acknowledges.
 * Goal: Seam's p99 no worse than the reference's while Seam persists every update.
 */
const scale = QUICK ? { readers: 20, annotations: 200, perSecond: 100 } : { readers: 100, annotations: 2000, perSecond: 100 };
const script = fileURLToPath(new URL('./sync/fanout-load.ts', import.meta.url));

console.log(`fan-out: ${scale.readers} stock readers + 1 writer in one room, ${scale.annotations} annotations at ${scale.perSecond}/s${QUICK ? ' (quick)' : ''}`);
const results = new Map<string, FanoutResult>();
for (const target of TARGETS) {
  const result = await withServer(target, async (server) => {
    const room = await server.createRoom('fan-out benchmark', benchDumpText());
    const load = forkLoad<FanoutConfig, FanoutResult>(script, {
      syncUrl: server.syncUrl,
      room,
      ...scale,
      acks: server.acks,
      drainMs: 30_000,
    });
    await load.ready;
    load.go();
    return load.result;
  });
  results.set(target.name, result);
}

const rows = [...results].map(([name, r]) => {
  const d = summarize(r.latencies);
  const a = summarize(r.ackLatencies);
  return [name, d.count, r.missing, d.p50, d.p99, d.max, a.count > 0 ? a.p50 : '-', a.count > 0 ? a.p99 : '-', r.unacknowledged,
    (scale.annotations / r.writeSeconds).toFixed(0), r.load.cpuPercent.toFixed(0), r.load.loopDelayP99, closeList(r.closes)];
});
printTable('delivery latency (ms), write → every reader', ['server', 'deliveries', 'missing', 'p50', 'p99', 'max', 'ack p50', 'ack p99', 'unacked', 'writes/s', 'load cpu%', 'load lag p99 ms', 'closes'], rows);

const ref = results.get('reference');
const seam = results.get('seam');
const p99 = (r: FanoutResult | undefined) => (r ? summarize(r.latencies).p99 : undefined);
const r99 = ratio(p99(seam), p99(ref));
console.log(`\nratio seam/reference: p50 ${ratio(seam && summarize(seam.latencies).p50, ref && summarize(ref.latencies).p50)}, p99 ${r99}, max ${ratio(seam && summarize(seam.latencies).max, ref && summarize(ref.latencies).max)}`);
console.log(`goal p99 ratio ≤ 1.0: ${r99 === 'n/a' ? 'n/a' : verdict(Number(r99) <= 1)}`);

const broken = [...results].filter(([, r]) => r.missing > 0 || r.unacknowledged > 0 || r.closes.length > 0);
for (const [name, r] of broken) console.error(`${name}: ${r.missing} deliveries missing, ${r.unacknowledged} writes unacknowledged, closes ${closeList(r.closes)}`);
process.exit(broken.length === 0 ? 0 : 1);
