import WebSocket from 'ws';
import type { CaptureRequest } from '@seam/shared/model';
import type { AgentToServer, JobRef, ResultBody, RunnerCapabilities, ServerToAgent } from '@seam/shared/protocol';
import { CloseCode, readServerMessage, writeRunnerMessage } from '@seam/shared/protocol';
import { backoffDelay, DEFAULT_BACKOFF, type Backoff } from './backoff';
import { executeCapture, type ExecuteConfig, type Execution } from './execute';
import { preparingPhase, type Preparation } from './preparation';

/** Least time between two phase messages while the runner prepares (pip prints many lines a second). */
const PREPARING_PHASE_MS = 500;

/** Everything one agent needs: where to dial, who it is, and how it runs captures. */
export interface AgentConfig {
  /** The server's base URL, `http(s)://host:port`; the socket is `ws(s)://host:port/runner`. */
  readonly server: string;
  /** Runner token; sent only as `Authorization: Bearer`, never logged. */
  readonly token: string;
  readonly name: string;
  readonly capabilities: RunnerCapabilities;
  /**
   * How captures run; a function is called once, before the first capture and after the
   * preparation (the sandbox binds the virtualenv's interpreter, which exists only then).
   */
  readonly execute: ExecuteConfig | (() => ExecuteConfig);
  readonly backoff?: Backoff;
  /** Progress lines; default stdout. */
  readonly log?: (line: string) => void;
  /**
   * Work to finish before the first capture (the local runner's first virtualenv build): a job
   * that arrives meanwhile waits for it, its phase showing the latest progress line.
   */
  readonly preparation?: Preparation;
}

interface Running {
  readonly ref: JobRef;
  cancel(): void;
}

/** Base HTTP URL and socket URL of a server given as http(s) or ws(s). */
export function serverUrls(server: string): { http: string; ws: string } {
  const u = new URL(server);
  const secure = u.protocol === 'https:' || u.protocol === 'wss:';
  const base = `${u.host}${u.pathname.replace(/\/$/, '')}`;
  return { http: `${secure ? 'https' : 'http'}://${base}`, ws: `${secure ? 'wss' : 'ws'}://${base}/runner` };
}

/**
 * The runner agent: dials the server, says hello with its capabilities, heartbeats, takes one job
 * at a time, streams its phase, runs it through the harness and posts the result over HTTP
 * (retried until the server answers). It reconnects with jittered exponential backoff; a job keeps
 * running across a reconnect, and its heartbeats resume on the new socket. A revoked token stops it.
 */
export class Agent {
  private ws: WebSocket | undefined;
  private running: Running | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  private readonly urls: { http: string; ws: string };
  private readonly log: (line: string) => void;
  private stoppedResolve: (() => void) | undefined;
  private execute: ExecuteConfig | undefined;
  /** Resolves when the agent stops for good (`stop()`, or a revoked or refused token). */
  readonly finished: Promise<void>;

  constructor(private readonly config: AgentConfig) {
    this.urls = serverUrls(config.server);
    this.log = config.log ?? ((line) => console.log(line));
    this.finished = new Promise((resolve) => (this.stoppedResolve = resolve));
    config.preparation?.done.catch(() => {
      if (!this.running) this.stop();
    });
  }

  /** Dials the server; returns at once, the agent runs until `stop()`. */
  start(): void {
    this.connect();
  }

  /** Closes the socket, kills a running capture and stops reconnecting. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeat);
    this.running?.cancel();
    this.ws?.close(CloseCode.goingAway, 'runner stopping');
    this.stoppedResolve?.();
  }

  private send(msg: AgentToServer): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(writeRunnerMessage(msg));
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.urls.ws, { headers: { authorization: `Bearer ${this.config.token}` }, maxPayload: 16 * 1024 * 1024 });
    this.ws = ws;
    ws.on('open', () => {
      this.send({ type: 'hello', name: this.config.name, capabilities: this.config.capabilities, agent: 'seam-runner/0.1' });
    });
    ws.on('message', (data, isBinary) => {
      const msg = isBinary ? null : readServerMessage(data.toString());
      if (msg) this.onMessage(msg);
    });
    ws.on('unexpected-response', (_req, res) => {
      if (res.statusCode === 401) {
        this.log(`${this.config.name}: the server refused the runner token (401); stopping`);
        this.stop();
      }
      ws.terminate();
    });
    ws.on('close', (code) => {
      clearInterval(this.heartbeat);
      if (this.ws !== ws) return;
      if (code === CloseCode.tokenRevoked || code === CloseCode.unauthorized) {
        this.log(`${this.config.name}: runner token revoked; stopping`);
        this.stop();
        return;
      }
      this.scheduleReconnect();
    });
    ws.on('error', (e) => {
      this.log(`${this.config.name}: connection error: ${e.message}`);
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.config.backoff ?? DEFAULT_BACKOFF, this.failures++);
    this.log(`${this.config.name}: disconnected; reconnecting in ${delay} ms`);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private onMessage(msg: ServerToAgent): void {
    switch (msg.type) {
      case 'welcome':
        this.failures = 0;
        this.log(`${this.config.name}: connected as ${msg.runnerId}`);
        clearInterval(this.heartbeat);
        this.heartbeat = setInterval(() => this.send({ type: 'heartbeat', jobs: this.running ? [this.running.ref] : [] }), msg.heartbeatMs);
        if (this.running) this.send({ type: 'heartbeat', jobs: [this.running.ref] });
        else this.send({ type: 'ready' });
        break;
      case 'job':
        if (this.running) {
          this.log(`${this.config.name}: refusing ${msg.jobId}: already running ${this.running.ref.jobId}`);
          break;
        }
        void this.run({ jobId: msg.jobId, attempt: msg.attempt }, msg.request);
        break;
      case 'cancel':
        if (this.running?.ref.jobId === msg.jobId && this.running.ref.attempt === msg.attempt) {
          this.log(`${this.config.name}: stopping ${msg.jobId}: ${msg.reason}`);
          this.running.cancel();
        }
        break;
      case 'error':
        this.log(`${this.config.name}: server error ${msg.code}: ${msg.message}`);
        break;
    }
  }

  /**
   * Waits for the runner's preparation, if any is under way, streaming its progress as the job's
   * phase; the error message when it failed, else null.
   */
  private async prepared(ref: JobRef): Promise<string | null> {
    const prep = this.config.preparation;
    if (!prep?.pending) return null;
    // At most one phase message per PREPARING_PHASE_MS, the latest line always sent in the end.
    let last = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      last = Date.now();
      this.send({ type: 'status', ...ref, phase: preparingPhase(prep.latest) });
    };
    this.send({ type: 'status', ...ref, phase: preparingPhase(prep.latest) });
    const off = prep.onLine(() => {
      const wait = PREPARING_PHASE_MS - (Date.now() - last);
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    });
    try {
      await prep.done;
      return null;
    } catch (e) {
      return (e as Error).message;
    } finally {
      off();
      clearTimeout(timer);
    }
  }

  private async run(ref: JobRef, request: CaptureRequest): Promise<void> {
    this.log(`${this.config.name}: running ${ref.jobId} (attempt ${ref.attempt})`);
    // The capture starts only once the runner is prepared; a cancel may come before.
    const started: { exec?: ReturnType<typeof executeCapture> } = {};
    let cancelled = false;
    this.running = { ref, cancel: () => { cancelled = true; started.exec?.cancel(); } };
    this.send({ type: 'heartbeat', jobs: [ref] });
    let unprepared = await this.prepared(ref);
    if (unprepared === null && !this.execute) {
      try {
        this.execute = typeof this.config.execute === 'function' ? this.config.execute() : this.config.execute;
      } catch (e) {
        unprepared = (e as Error).message;
      }
    }
    if (cancelled) {
      this.running = undefined;
      this.send({ type: 'ready' });
      return;
    }
    if (unprepared !== null || !this.execute) {
      await this.post(ref, { ok: false, error: { reason: 'runner-error', message: `the runner could not prepare its Python: ${unprepared ?? 'no capture configuration'}`.slice(0, 2000) } });
      this.log(`${this.config.name}: ${ref.jobId} failed: the runner could not prepare its Python`);
      this.running = undefined;
      // A runner without its Python can run nothing: it stops (and `npm start` starts it again).
      this.stop();
      return;
    }
    const exec = executeCapture(request, this.config.name, this.execute);
    started.exec = exec;
    this.send({ type: 'status', ...ref, phase: 'running' });
    let execution: Execution;
    try {
      execution = await exec.done;
    } catch (e) {
      execution = {
        body: { ok: false, error: { reason: 'runner-error', message: `the runner could not run the capture: ${(e as Error).message}` } },
        sandbox: { code: null, signal: null, timedOut: false, outputExceeded: false, cancelled: false, oomKilled: false, quotaExceeded: false, outputBytes: 0, stdoutTail: '', stderrTail: '', wallMs: 0 },
        timings: {},
      };
    }
    if (!cancelled) {
      this.send({ type: 'status', ...ref, phase: 'uploading' });
      await this.post(ref, execution.body);
      this.log(`${this.config.name}: ${ref.jobId} ${execution.body.ok ? 'done' : `failed: ${execution.body.error.message}`}`);
    }
    this.running = undefined;
    this.send({ type: 'ready' });
  }

  /** Posts a result until the server answers it (any 2xx or 4xx); 5xx and network errors are retried. */
  private async post(ref: JobRef, body: ResultBody): Promise<void> {
    const url = `${this.urls.http}/api/runner/jobs/${encodeURIComponent(ref.jobId)}/attempts/${ref.attempt}/result`;
    for (let n = 0; !this.stopped; n++) {
      try {
        const res = await fetch(url, {
          method: 'POST', headers: { authorization: `Bearer ${this.config.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
        });
        if (res.status < 500) {
          if (!res.ok) this.log(`${this.config.name}: result of ${ref.jobId} refused (${res.status}): ${await res.text()}`);
          return;
        }
      } catch (e) {
        this.log(`${this.config.name}: posting the result of ${ref.jobId} failed: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, backoffDelay(this.config.backoff ?? DEFAULT_BACKOFF, n)));
    }
  }
}
