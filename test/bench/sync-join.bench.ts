import { fileURLToPath } from 'node:url';
import { printTable } from './table';
import { benchDumpText } from './sync/annotations';
import { forkLoad } from './sync/ipc';
import type { JoinConfig, JoinResult } from './sync/join-load';
import { QUICK, closeList, mb, ratio, summarize, verdict } from './sync/report';
import { TARGETS, withServer } from './sync/targets';

/**
 * Join: a room already holding many annotations (kept loaded by its writer), and fresh stock
 * clients joining one after another; time from creating the provider to its first `sync`.
 * Goal: p95 ≤ 250 ms.
 */
const scale = QUICK ? { annotations: 1000, joins: 5 } : { annotations: 10_000, joins: 20 };
const GOAL_MS = 250;
const script = fileURLToPath(new URL('./sync/join-load.ts', import.meta.url));

console.log(`join: a room with ${scale.annotations} annotations, ${scale.joins} fresh stock clients joining one at a time${QUICK ? ' (quick)' : ''}`);
const results = new Map<string, JoinResult>();
for (const target of TARGETS) {
  const result = await withServer(target, async (server) => {
    const room = await server.createRoom('join benchmark', benchDumpText());
    const load = forkLoad<JoinConfig, JoinResult>(script, {
      syncUrl: server.syncUrl,
      room,
      ...scale,
      batch: 100,
      batchesPerSecond: 20,
      acks: server.acks,
    });
    await load.ready;
    load.go();
    return load.result;
  });
  results.set(target.name, result);
}

const rows = [...results].map(([name, r]) => {
  const t = summarize(r.times);
  return [name, mb(r.docBytes), r.fillSeconds, t.count, t.p50, t.p95, t.max, r.incomplete, r.load.cpuPercent.toFixed(0), closeList(r.closes)];
});
printTable('time to synced (ms)', ['server', 'doc MB', 'fill s', 'joins', 'p50', 'p95', 'max', 'incomplete', 'load cpu%', 'closes'], rows);

const ref = results.get('reference');
const seam = results.get('seam');
console.log(`\nratio seam/reference: p50 ${ratio(seam && summarize(seam.times).p50, ref && summarize(ref.times).p50)}, p95 ${ratio(seam && summarize(seam.times).p95, ref && summarize(ref.times).p95)}`);
for (const [name, r] of results) console.log(`goal p95 ≤ ${GOAL_MS} ms (${name}): ${verdict(summarize(r.times).p95 <= GOAL_MS)}`);

const broken = [...results].filter(([, r]) => r.incomplete > 0 || r.closes.length > 0);
for (const [name, r] of broken) console.error(`${name}: ${r.incomplete} joins incomplete, closes ${closeList(r.closes)}`);
process.exit(broken.length === 0 ? 0 : 1);
