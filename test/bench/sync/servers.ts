import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A room of a server under test, as plain data a load process can receive. */
export interface BenchRoom {
  readonly id: string;
  /** The document its annotations anchor into. */
  readonly docId: string;
  /** Query parameters of a client that writes (for Seam: an annotator token). */
  readonly writer: Readonly<Record<string, string>>;
  /** Query parameters of a client that only reads (for Seam: a viewer token). */
  readonly reader: Readonly<Record<string, string>>;
}

/** A sync server running in its own process, as the benchmarks drive it. */
export interface ServerUnderTest {
  readonly name: string;
  /** `ws://127.0.0.1:PORT/sync`: the stock provider's serverUrl; the room id follows it. */
  readonly syncUrl: string;
  /** The process that serves (the one whose RSS and CPU are measured). */
  readonly pid: number;
  /** Whether writers may ask for Seam's durable acknowledgements with `ack=1`. */
  readonly acks: boolean;
  createRoom(title: string, dumpText: string): Promise<BenchRoom>;
  stop(): Promise<void>;
}

/**
 * The Node flags of every server under test, the same for both: `SEAM_BENCH_CPU_PROF=<dir>` makes
 * each write a V8 CPU profile into that folder when it exits (open it in Chrome DevTools), and
 * `SEAM_BENCH_NODE_FLAGS` adds flags of its own (space-separated, e.g.
 * `--max-semi-space-size=2 --trace-gc`); none when both are unset.
 */
export function serverFlags(): string[] {
  const dir = process.env.SEAM_BENCH_CPU_PROF;
  const extra = (process.env.SEAM_BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  return [...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...extra];
}

/** Starts the y-websocket 2.1.0 reference server (no persistence) in a child process on port 0. */
export async function startReference(): Promise<ServerUnderTest> {
  const { child, port } = await spawnServer(fileURLToPath(new URL('./reference-server.ts', import.meta.url)), {});
  return {
    name: 'reference',
    syncUrl: `ws://127.0.0.1:${port}/sync`,
    pid: child.pid ?? NaN,
    acks: false,
    createRoom: async () => ({ id: randomUUID(), docId: 'dump', writer: {}, reader: {} }),
    stop: () => stopChild(child),
  };
}

/**
 * Runs a server script as `node [server flags] --import tsx <script>` with `env` added, and waits
 * for the JSON line on stdout that names its port: `{"port":N}` or `{"listening":{"port":N}}`.
 * Both servers under test start this same way, so neither gets other conditions.
 */
export async function spawnServer(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...serverFlags(), '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, port: await announcedPort(child) };
}

function announcedPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    if (!child.stdout) throw new Error('child has no stdout pipe');
    const lines = createInterface({ input: child.stdout });
    const onExit = (code: number | null, signal: string | null) => reject(new Error(`server exited with ${code ?? signal} before it listened`));
    child.once('exit', onExit);
    // Keeps reading afterwards, so a full pipe never stalls the server.
    lines.on('line', (line) => {
      const port = portOf(line);
      if (port === undefined) return;
      child.off('exit', onExit);
      resolve(port);
    });
  });
}

function portOf(line: string): number | undefined {
  try {
    const parsed = JSON.parse(line) as { port?: unknown; listening?: { port?: unknown } };
    const port = parsed.port ?? parsed.listening?.port;
    return typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Sends SIGTERM and waits for the exit; SIGKILL after `graceMs` (default 5 s). */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
