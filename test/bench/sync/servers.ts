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

/** Starts the y-websocket 2.1.0 reference server (no persistence) in a child process on port 0. */
export async function startReference(): Promise<ServerUnderTest> {
  const script = fileURLToPath(new URL('./reference-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { port } = JSON.parse(await firstLine(child)) as { port: number };
  return {
    name: 'reference',
    syncUrl: `ws://127.0.0.1:${port}/sync`,
    pid: child.pid ?? NaN,
    acks: false,
    createRoom: async () => ({ id: randomUUID(), docId: 'dump', writer: {}, reader: {} }),
    stop: () => stopChild(child),
  };
}

/** The first line a child writes on stdout; rejects if it exits first. */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!child.stdout) throw new Error('child has no stdout pipe');
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      // Keep draining whatever else the server prints, so a full pipe never stalls it.
      child.stdout?.resume();
      resolve(line);
    });
    child.once('exit', (code, signal) => reject(new Error(`server exited with ${code ?? signal} before it listened`)));
  });
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
