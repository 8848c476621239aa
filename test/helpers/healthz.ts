import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { TestServer } from './server';

/** What `healthzDuring` saw: the attack's result and every `/healthz` round trip meanwhile (ms). */
export interface HealthzWatch<T> {
  readonly result: T;
  readonly samples: readonly number[];
  readonly worstMs: number;
}

/**
 * The prober, in a process of its own so that the attacker's work in the test process (building
 * and sending big frames, reading big bodies) does not count against the server: asks
 * `GET /healthz` one request at a time, 5 ms apart, prints `ready` after the first answer, and on
 * a line on stdin (or once stdin closes) prints every round trip (ms) as a JSON array and exits.
 */
const PROBE = `
const url = process.argv[1];
const samples = [];
let stop = false;
process.stdin.on('data', () => { stop = true; });
process.stdin.on('end', () => { stop = true; });
(async () => {
  while (!stop || samples.length < 4) {
    const started = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('/healthz answered ' + res.status);
    samples.push(performance.now() - started);
    if (samples.length === 1) console.log('ready');
    await new Promise((r) => setTimeout(r, 5));
  }
  console.log(JSON.stringify(samples));
})();
`;

/**
 * Runs `attack` while another process asks the server's `/healthz` over and over, and returns the
 * attack's result with every round trip measured meanwhile: what a member of another room would
 * wait for the server while the attack is under way. At least three are taken, however short the
 * attack.
 */
export async function healthzDuring<T>(server: Pick<TestServer, 'url'>, attack: () => Promise<T>): Promise<HealthzWatch<T>> {
  const child = spawn(process.execPath, ['-e', PROBE, `${server.url}/healthz`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'ready') resolve();
      else output.push(line);
    });
    void exited.then((code) => reject(new Error(`the /healthz prober exited with ${code} before it was ready`)));
  });
  await ready;
  let result: T;
  try {
    result = await attack();
  } finally {
    child.stdin.end('stop\n');
    const code = await exited;
    if (code !== 0) throw new Error(`the /healthz prober exited with ${code}`);
  }
  // The first round trip was taken before the attack began (and opened the connection).
  const samples = (JSON.parse(output.at(-1) ?? '[]') as number[]).slice(1);
  return { result, samples, worstMs: Math.max(...samples) };
}
