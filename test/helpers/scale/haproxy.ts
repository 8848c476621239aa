import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAPROXY } from './binaries';
import { canConnect, spawnDaemon, waitReady, type Daemon } from './daemon';
import { freePort } from './free-port';

/** HAProxy's view of one backend server: what its health checks say. */
export type BackendState = 'UP' | 'DOWN' | 'MAINT' | string;

/** HAProxy in front of Seam instances. */
export interface TestHaproxy {
  /** `http://127.0.0.1:PORT`: what clients dial (HTTP and the sync websocket). */
  readonly url: string;
  readonly port: number;
  /** Points backend `index` at another port (a restarted instance listens on a new one). */
  setBackend(index: number, port: number): Promise<void>;
  /** Each backend's state as its health checks on `/healthz` last found it. */
  states(): Promise<BackendState[]>;
  /** Resolves once backend `index` is in `state`; rejects after `timeoutMs`. */
  waitState(index: number, state: BackendState, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The configuration: HTTP mode (the websocket upgrade is HTTP; after it HAProxy tunnels the
 * bytes, `timeout tunnel` bounding an idle socket), round robin over the backends, a health check
 * `GET /healthz` every 200 ms (down after 2 failures, up after 1 success), and `option redispatch`
 * so that a request for a dead backend goes to another. The admin socket lets tests repoint and
 * inspect backends.
 */
function config(port: number, adminSocket: string, backends: readonly number[]): string {
  return `global
  stats socket ${adminSocket} mode 600 level admin
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  option redispatch
  retries 2

frontend seam
  bind 127.0.0.1:${port}
  default_backend seam

backend seam
  balance roundrobin
  option httpchk GET /healthz
  http-check expect status 200
  default-server inter 200ms fall 2 rise 1
${backends.map((p, i) => `  server s${i} 127.0.0.1:${p} check`).join('\n')}
`;
}

/** Sends one command on HAProxy's admin socket and returns its answer. */
function admin(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.once('error', reject);
    socket.once('close', () => resolve(answer));
    socket.once('connect', () => socket.end(`${command}\n`));
  });
}

/** Starts Debian's `haproxy` in the foreground on a free loopback port, balancing over `backends` (ports on 127.0.0.1). */
export async function startHaproxy(backends: readonly number[]): Promise<TestHaproxy> {
  if (backends.length === 0) throw new Error('HAProxy needs at least one backend');
  const dir = mkdtempSync(join(tmpdir(), 'seam-haproxy-'));
  const adminSocket = join(dir, 'admin.sock');
  const cfg = join(dir, 'haproxy.cfg');
  let port = 0;
  let daemon: Daemon | undefined;
  for (let attempt = 1; daemon === undefined; attempt++) {
    port = await freePort();
    writeFileSync(cfg, config(port, adminSocket, backends));
    const d = spawnDaemon(HAPROXY, ['-f', cfg, '-db']);
    try {
      // Ready once both the frontend and the admin socket answer (HAProxy opens them one after the other).
      await waitReady(d, 'HAProxy', async () => (await canConnect(port)) && existsSync(adminSocket) && (await admin(adminSocket, 'show info').catch(() => '')).includes('Name: HAProxy'));
      daemon = d;
    } catch (err) {
      if (attempt >= 3 || !/cannot bind|address already in use/i.test(d.output())) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const running = daemon;
  const states = async (): Promise<BackendState[]> => {
    // `show stat` is CSV: # pxname,svname,qcur,…,status (column 18),…
    const lines = (await admin(adminSocket, 'show stat')).split('\n');
    const header = (lines[0] ?? '').replace(/^# /, '').split(',');
    const at = (name: string) => header.indexOf(name);
    return lines
      .slice(1)
      .map((l) => l.split(','))
      .filter((cols) => cols[at('pxname')] === 'seam' && /^s\d+$/.test(cols[at('svname')] ?? ''))
      .sort((a, b) => Number(a[at('svname')]!.slice(1)) - Number(b[at('svname')]!.slice(1)))
      .map((cols) => (cols[at('status')] ?? '').split(' ')[0] as BackendState);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setBackend: async (index, backendPort) => {
      const answer = await admin(adminSocket, `set server seam/s${index} addr 127.0.0.1 port ${backendPort}`);
      if (!/changed/i.test(answer)) throw new Error(`HAProxy refused to repoint s${index}: ${answer.trim()}`);
    },
    states,
    waitState: async (index, state, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      let last: BackendState | undefined;
      while ((last = (await states())[index]) !== state) {
        if (Date.now() > deadline) throw new Error(`HAProxy backend s${index} is ${last ?? 'missing'}, not ${state}, after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: async () => {
      await running.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
