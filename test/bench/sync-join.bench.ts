import { fileURLToPath } from 'node:url';
import { printTable } from './table';
import { benchDumpText } from './sync/annotations';
import { measureApplyFloor } from './sync/apply-floor';
import { forkLoad } from './sync/ipc';
import type { JoinConfig, JoinResult } from './sync/join-load';
import { ProcessSampler, type ProcessUsage } from './sync/proc-stats';
import { QUICK, closeList, mb, ratio, saturation, summarize, verdict } from './sync/report';
import { measureAll } from './sync/targets';

/**
 * Join: a room already holding many annotations (kept loaded by its writer), and fresh stock
 * clients joining one after another; time from creating the provider to its first `sync`.
 * Goal: p95 ≤ 250 ms. Then the floor no server can remove: Yjs applying the same room in-process,
 * in the room document's version 2 (what the rooms hold) and version 1 (before the schema change),
 * and each server's join against that floor.
 */
const scale = QUICK ? { annotations: 1000, joins: 5 } : { annotations: 10_000, joins: 20 };
const GOAL_MS = 250;
const ROUNDS = QUICK ? 1 : 2;
const script = fileURLToPath(new URL('./sync/join-load.ts', import.meta.url));

console.log(`join: a room with ${scale.annotations} annotations, ${scale.joins} fresh stock clients joining one at a time, ` +
  `${ROUNDS} runs per server${QUICK ? ' (quick)' : ''}`);
const results = await measureAll(ROUNDS, async (server) => {
  const room = await server.createRoom('join benchmark', benchDumpText());
  const load = forkLoad<JoinConfig, JoinResult>(script, { syncUrl: server.syncUrl, room, ...scale, batch: 100, batchesPerSecond: 20, acks: server.acks });
  try {
    await load.ready;
    const sampler = new ProcessSampler(server.pid);
    load.go();
    const result = await load.result;
    return { ...result, server: sampler.stop() };
  } finally {
    load.kill();
  }
});

type Run = JoinResult & { readonly server: ProcessUsage };

const row = (name: string, runs: readonly Run[]) => {
  const t = summarize(runs.flatMap((r) => r.times));
  return [name, runs.map((r) => mb(r.docBytes)).join('/'), runs.map((r) => r.fillSeconds.toFixed(1)).join('/'), t.count, t.p50, t.p95, t.max,
    runs.reduce((s, r) => s + r.incomplete, 0), runs.map((r) => r.server.cpuSeconds.toFixed(2)).join('/'), runs.map((r) => r.load.cpuPercent.toFixed(0)).join('/'), closeList(runs.flatMap((r) => r.closes))];
};
const rows = [...results].flatMap(([name, runs]) => [...runs.map((r, i) => row(`${name} #${i + 1}`, [r])), row(`${name} (all)`, runs)]);
printTable('time to synced (ms)', ['server', 'doc MB', 'fill s', 'joins', 'p50', 'p95', 'max', 'incomplete', 'server cpu s', 'load cpu%', 'closes'], rows);
const phase = (runs: readonly Run[], f: (r: JoinResult) => number[]) => summarize(runs.flatMap(f));
printTable('where a join spends its time (ms, p50 / p95 over all runs)', ['server', 'connect', 'server: open → step 2 received', 'client: apply step 2'],
  [...results].map(([name, runs]) => [name, ...[(r: JoinResult) => r.connect, (r: JoinResult) => r.serve, (r: JoinResult) => r.apply]
    .map((f) => `${phase(runs, f).p50.toFixed(0)} / ${phase(runs, f).p95.toFixed(0)}`)]));

const floors = measureApplyFloor(scale.annotations, scale.joins);
printTable(`floor: Yjs alone applying the room to a fresh Y.Doc in this process, no server (ms, ${scale.joins} runs)`,
  ['room', 'MB', 'p50', 'p95', 'max', 'p95 / goal'],
  floors.map((f) => [f.name, mb(f.bytes), f.times.p50, f.times.p95, f.times.max, (f.times.p95 / GOAL_MS).toFixed(2)]));

const pooled = (name: string) => {
  const runs = results.get(name) ?? [];
  return runs.length > 0 ? summarize(runs.flatMap((r) => r.times)) : undefined;
};
const [seam, ref] = [pooled('seam'), pooled('reference')];
const floor = floors[0]?.times;
printTable('join against the goal and the floor (all runs)', ['server', 'p50 ms', 'p95 ms', 'p95 / goal', 'p50 / floor p50', 'p95 / floor p95'],
  [...results.keys()].map((name) => {
    const t = pooled(name);
    return [name, t?.p50 ?? NaN, t?.p95 ?? NaN, ratio(t?.p95, GOAL_MS), ratio(t?.p50, floor?.p50), ratio(t?.p95, floor?.p95)];
  }));
console.log(`\nratio seam/reference (all runs): p50 ${ratio(seam?.p50, ref?.p50)}, p95 ${ratio(seam?.p95, ref?.p95)}`);
for (const [name] of results) console.log(`goal p95 ≤ ${GOAL_MS} ms (${name}): ${verdict((pooled(name)?.p95 ?? Infinity) <= GOAL_MS)}`);
for (const [name, runs] of results) {
  const warning = saturation(name, runs.map((r) => r.load));
  if (warning) console.log(warning);
}

const broken = [...results].filter(([, runs]) => runs.some((r) => r.incomplete > 0 || r.closes.length > 0));
for (const [name] of broken) console.error(`${name}: joins incomplete or sockets closed by the server (see the table)`);
process.exit(broken.length === 0 ? 0 : 1);
