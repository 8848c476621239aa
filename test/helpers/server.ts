import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Annotation } from '@seam/shared/model';
import { loadConfig, startServer } from '@seam/server';

/** A Seam server under test, in this process or a child. */
export interface TestServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Stops the server (SIGTERM for a child) and removes the data dir if the helper made it. */
  close(): Promise<void>;
  /** Child servers only: sends a signal (e.g. `SIGKILL`) and resolves when the process has exited. */
  kill?(signal: NodeJS.Signals): Promise<void>;
  readonly child?: ChildProcess;
  /** Child servers started with `captureLog`: everything the server wrote to stderr (its pino log) so far. */
  log?(): string;
}

/** What `POST /api/rooms` answers. */
export interface CreatedRoom {
  readonly id: string;
  readonly title: string;
  readonly tokens: { readonly owner: string; readonly annotator: string; readonly viewer: string };
  readonly links: { readonly owner: string; readonly annotator: string; readonly viewer: string };
}

const MAIN = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts a server on port 0 with SQLite in a temp dir (or `opts.dataDir`, kept afterwards), in
 * this process by default or, with `child: true`, as `tsx server/src/main.ts` in a child process
 * (for crash tests). `env` holds extra environment variables (limits, `SEAM_SYNC_MODE`, …);
 * `captureLog` keeps a child's stderr for `log()` instead of passing it through.
 */
export async function startTestServer(opts: { dataDir?: string; env?: Record<string, string>; child?: boolean; captureLog?: boolean } = {}): Promise<TestServer> {
  const owned = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'seam-test-'));
  const cleanup = () => {
    if (owned) rmSync(dataDir, { recursive: true, force: true });
  };
  const env = { SEAM_RUNNER: 'off', ...opts.env, PORT: '0', HOST: '127.0.0.1', SEAM_DATA_DIR: dataDir };
  if (!opts.child) {
    const server = await startServer(loadConfig({ SEAM_LOG_LEVEL: 'silent', ...env }));
    return { url: server.url, port: server.port, dataDir, close: async () => { await server.close(); cleanup(); } };
  }
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: { ...process.env, SEAM_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', opts.captureLog ? 'pipe' : 'inherit'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null, signal: string | null) => reject(new Error(`server exited with ${code ?? signal} before it listened`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      const parsed = (() => {
        try {
          return JSON.parse(line) as { listening?: { port?: number } };
        } catch {
          return undefined;
        }
      })();
      if (parsed?.listening?.port) {
        child.off('exit', onExit);
        resolve(parsed.listening.port);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    child,
    ...(opts.captureLog ? { log: () => stderr } : {}),
    kill: async (signal) => {
      child.kill(signal);
      await exited(child);
    },
    close: async () => {
      child.kill('SIGTERM');
      await exited(child);
      cleanup();
    },
  };
}

/** Creates a room over HTTP and returns the API's answer (ids, tokens, links). */
export async function createRoom(server: Pick<TestServer, 'url'>, title = 'test room'): Promise<CreatedRoom> {
  const res = await fetch(`${server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
  if (res.status !== 201) throw new Error(`POST /api/rooms answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CreatedRoom;
}

/** Adds a dump to a room over the API (`POST …/documents` with JSON), as an upload would; returns its id. */
export async function addDocument(server: Pick<TestServer, 'url'>, roomId: string, token: string, title: string, text: string): Promise<string> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, text }),
  });
  if (res.status !== 201) throw new Error(`POST …/documents answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Uploads a profiler trace (`bytes` of `type`, gzipped JSON by default) as `title` with `token`; its id. Throws unless the server answers 201. */
export async function addTrace(server: Pick<TestServer, 'url'>, roomId: string, token: string, title: string, bytes: Uint8Array, type = 'application/gzip'): Promise<string> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}/documents?title=${encodeURIComponent(title)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: new Uint8Array(bytes),
  });
  if (res.status !== 201) throw new Error(`POST …/documents answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** The room's annotations as `GET /api/rooms/:id/annotations` lists them for `token`. */
export async function listAnnotations(server: Pick<TestServer, 'url'>, roomId: string, token: string): Promise<Annotation[]> {
  const res = await fetch(`${server.url}/api/rooms/${roomId}/annotations`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { annotations: Annotation[] }).annotations;
}
