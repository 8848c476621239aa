import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { CaptureEntry, CaptureRequestInput, DocumentMeta } from '@seam/shared/model';
import { openDatabase, RunnerTokens, startServer, SyncMode, type RunningServer } from '@seam/server';
import { connectClient, createRoom, waitFor, type CreatedRoom, type TestClient } from '.';

/** Helpers the capture end-to-end tests share: a server with short leases, runner tokens, agent processes. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'runners', 'bin', 'seam-runner.js');

export const MLP = 'import jax\n\n\ndef mlp(x, w, b):\n    return jax.nn.relu(x @ w + b).mean(axis=-1)\n';
export const MLP_ARGS = [
  { shape: [32, 64], dtype: 'float32' as const },
  { shape: [64, 128], dtype: 'float32' as const },
  { shape: [128], dtype: 'float32' as const },
];
export const ATTENTION = 'import jax\n\n\ndef attention(q, k, v):\n    scores = q @ k.T\n    return jax.nn.softmax(scores, axis=-1) @ v\n';

export interface CaptureServer {
  readonly server: RunningServer;
  readonly url: string;
  readonly dataDir: string;
  readonly room: CreatedRoom;
  /** Creates a runner token in the server's data directory, as the CLI does. */
  token(name: string): { id: string; token: string };
  revoke(id: string): void;
  close(): Promise<void>;
}

/** A server on port 0 with a temp data dir, one room, and the given lease timings; serving the built web app from `webDir` when given. */
export async function startCaptureServer(jobs: { leaseMs?: number; maxAttempts?: number; retryWaitMs?: number } = {}, webDir?: string): Promise<CaptureServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'seam-capture-test-'));
  const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, runner: false, log: pino({ level: 'silent' }), jobs, ...(webDir ? { webDir } : {}) });
  const room = await createRoom(server);
  const db = openDatabase(dataDir, SyncMode.normal);
  const tokens = new RunnerTokens(db);
  return {
    server, url: server.url, dataDir, room,
    token: (name) => tokens.create(name),
    revoke: (id) => { tokens.revoke(id); },
    close: async () => {
      db.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Where the capture calls below go: a server's (or a load balancer's) address and a room on it. */
export type CaptureTarget = Pick<CaptureServer, 'url' | 'room'>;

/** A `seam-runner` child process and the lines it printed. */
export interface AgentProcess {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Resolves once a printed line matches. */
  saw(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited(): Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `seam-runner` (the real bin) against the server and waits until it is connected. */
export async function startAgent(url: string, token: string, name: string, extra: readonly string[] = []): Promise<AgentProcess> {
  const child = spawn(process.execPath, [BIN, '--server', url, '--token', token, '--name', name, ...extra], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const agent: AgentProcess = {
    child, lines,
    saw: (pattern, timeoutMs = 120_000) => waitFor(() => lines.some((l) => pattern.test(l)), `runner ${name} to print ${pattern}: ${lines.join(' | ')}`, timeoutMs),
    exited: () => exit,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
  await agent.saw(/connected as /);
  return agent;
}

/** A capture server with one runner connected and a viewer synced to its room. */
export interface CaptureRoom {
  readonly s: CaptureServer;
  readonly agent: AgentProcess;
  readonly viewer: TestClient;
  /** Disconnects the viewer, stops the runner, then the server. */
  close(): Promise<void>;
}

/**
 * Starts a capture server with default leases, a `seam-runner` named `runner` (with `agentArgs`)
 * and a viewer client of the room; on failure whatever was started is stopped again.
 */
export async function startCaptureRoom(runner: string, agentArgs: readonly string[] = []): Promise<CaptureRoom> {
  const s = await startCaptureServer();
  let agent: AgentProcess | undefined;
  let viewer: TestClient | undefined;
  const close = async () => {
    viewer?.destroy();
    await agent?.stop();
    await s.close();
  };
  try {
    agent = await startAgent(s.url, s.token(runner).token, runner, agentArgs);
    viewer = connectClient(s, s.room.id, s.room.tokens.viewer);
    await viewer.synced();
    return { s, agent, viewer, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The room's entries for a finished job's documents, in the job's order, once `viewer` has them all. */
export async function captureGroup(viewer: TestClient, job: CaptureEntry): Promise<DocumentMeta[]> {
  const docs = viewer.doc.getMap<DocumentMeta>('documents');
  await waitFor(() => job.documents.every((id) => docs.has(id)), 'the capture group in the room');
  return job.documents.map((id) => docs.get(id)!);
}

async function api<T>(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** `POST /api/rooms/:id/captures`. */
export function requestCapture(s: CaptureTarget, body: CaptureRequestInput, token = s.room.tokens.owner) {
  return api<{ job: CaptureEntry; error?: { code: string; message: string } }>(s.url, token, 'POST', `/api/rooms/${s.room.id}/captures`, body);
}

/** `GET /api/rooms/:id/captures/:jobId`. */
export async function getJob(s: CaptureTarget, jobId: string): Promise<CaptureEntry> {
  return (await api<{ job: CaptureEntry }>(s.url, s.room.tokens.owner, 'GET', `/api/rooms/${s.room.id}/captures/${jobId}`)).body.job;
}

/** Waits until the job reaches one of `statuses` and returns it. */
export async function waitJob(s: CaptureTarget, jobId: string, statuses: readonly string[], timeoutMs = 150_000): Promise<CaptureEntry> {
  let job = await getJob(s, jobId);
  await waitFor(async () => {
    job = await getJob(s, jobId);
    return statuses.includes(job.status);
  }, `job ${jobId} to be ${statuses.join('|')} (now ${job.status})`, timeoutMs);
  return job;
}

/** The text of a room document. */
export async function documentText(s: CaptureServer, docId: string): Promise<string> {
  const res = await fetch(`${s.url}/api/rooms/${s.room.id}/documents/${docId}/text`, { headers: { authorization: `Bearer ${s.room.tokens.owner}` } });
  if (!res.ok) throw new Error(`document ${docId}: ${res.status}`);
  return res.text();
}

/** The stored analysis of a room document. */
export async function documentAnalysis<T>(s: CaptureServer, docId: string): Promise<T> {
  const res = await fetch(`${s.url}/api/rooms/${s.room.id}/documents/${docId}/analysis`, { headers: { authorization: `Bearer ${s.room.tokens.owner}` } });
  if (!res.ok) throw new Error(`analysis of ${docId}: ${res.status}`);
  return (await res.json()) as T;
}
