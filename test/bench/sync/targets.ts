import { loadavg } from 'node:os';
import { startSeam } from './seam-server';
import { startReference, type ServerUnderTest } from './servers';

/** A server the sync benchmarks compare, started fresh for every run. */
export interface Target {
  readonly name: string;
  start(): Promise<ServerUnderTest>;
}

/** The servers every sync benchmark runs, reference first, in one run. */
export const TARGETS: readonly Target[] = [
  { name: 'reference', start: startReference },
  { name: 'seam', start: startSeam },
];

/** Starts `target`, runs `measure` against it, and stops it whatever happens. */
export async function withServer<T>(target: Target, measure: (server: ServerUnderTest) => Promise<T>): Promise<T> {
  const server = await target.start();
  try {
    return await measure(server);
  } finally {
    await server.stop();
  }
}

/**
 * Runs `measure` on every target `rounds` times, in ABBA order (reference, seam, seam, reference, …)
 * so that a machine getting busier or quieter during the run weighs on both servers alike. Prints
 * the machine's load average before each run, since other work on it colours every figure.
 */
export async function measureAll<T>(rounds: number, measure: (server: ServerUnderTest) => Promise<T>): Promise<Map<string, T[]>> {
  const results = new Map<string, T[]>(TARGETS.map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
    for (const target of order) {
      console.log(`  run ${round + 1}/${rounds} on ${target.name}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      results.get(target.name)?.push(await withServer(target, measure));
    }
  }
  return results;
}
