import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CaptureEntry, CaptureError, CaptureProvenance, CaptureRequest, CarriedCounts, DocumentKind } from '@seam/shared/model';
import type { ResultBody, RunnerCapabilities } from '@seam/shared/protocol';
import { agentMessageProblem, CloseCode, CLOSE_REASONS, readAgentMessage, writeRunnerMessage } from '@seam/shared/protocol';
import type { JobLeases, RunnerTokenStore } from '../store/shared-store';
import type { JobNotice, JobSignal } from './job-signal';
import type { LiveRunner, LiveRunners } from './live-runners';
import { toCaptureEntry, type JobRecord } from './queue';
import { RunnerRegistry, type ConnectedRunner, type RunnerInfo, type RunnerSocket } from './registry';
import { registrationProblem, type RunnerTokenInfo } from './runner-tokens';

/** One dump of a capture group, as handed to the server's document ingest. */
export interface CaptureDocument {
  readonly title: string;
  readonly text: string;
  readonly kind: DocumentKind;
  /** `runner:<name>`. */
  readonly addedBy: string;
  /** The job id: every dump of one capture shares it. */
  readonly captureId: string;
}

/** Where the job queue writes into rooms: the server's ingest and its server-only `captures` key. */
export interface CaptureSink {
  /** Stores a dump and lists it in the room's `documents` map; resolves to its document id. */
  ingest(roomId: string, doc: CaptureDocument): Promise<{ readonly id: string }>;
  /** Writes one job's entry into the room's `captures` map (server-written, never by clients). */
  publish(roomId: string, entry: CaptureEntry): void;
  /**
   * Carries the annotations on the dumps of `previous` over to those of `next`, the capture that
   * re-ran it ("Run again"), and resolves to what it did.
   */
  carry(roomId: string, previous: { readonly id: string; readonly documents: readonly string[] }, next: { readonly id: string; readonly documents: readonly string[] }): Promise<CarriedCounts>;
}

/** The few log calls the queue makes; pino's logger fits. Tokens are never passed to it. */
export interface JobLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Lease timings and retry limit; tests shorten them. */
export interface JobTimings {
  /** How long a lease lasts without a heartbeat; default 30 s. */
  readonly leaseMs: number;
  /** How often runners are told to heartbeat; default a third of the lease. */
  readonly heartbeatMs: number;
  /** Leases a job gets before it fails; default 3. */
  readonly maxAttempts: number;
  /** How long a job put back after a lost runner waits for another before it fails; default 2 leases. */
  readonly retryWaitMs: number;
}

/** Fills the timings from a partial set, derived values following `leaseMs`. */
export function resolveTimings(partial: Partial<JobTimings> = {}): JobTimings {
  const leaseMs = partial.leaseMs ?? 30_000;
  return {
    leaseMs,
    heartbeatMs: partial.heartbeatMs ?? Math.max(50, Math.floor(leaseMs / 3)),
    maxAttempts: partial.maxAttempts ?? 3,
    retryWaitMs: partial.retryWaitMs ?? 2 * leaseMs,
  };
}

/** Whether `job` is (or was last) leased to a runner holding `token`: only that token may post its results. */
export function leasedTo(job: JobRecord, token: RunnerTokenInfo): boolean {
  return job.runnerId?.startsWith(`${token.id}/`) === true;
}

/** The outcome of posting a result: whether this post applied it, and the job as it stands. */
export interface ResultOutcome {
  readonly applied: boolean;
  readonly job: JobRecord;
}

/**
 * Where the capture service keeps its jobs and runner tokens: the embedded SQLite queue and tokens
 * (one instance), or the shared store's in PostgreSQL (every instance of a scaled deployment).
 */
export interface CaptureStores {
  /** The queue with leases. */
  readonly jobs: JobLeases;
  readonly tokens: RunnerTokenStore;
  /** Notices between instances sharing the queue (scaled mode); absent: this instance is the only one. */
  readonly signal?: JobSignal;
  /** The runners connected to every instance (scaled mode); absent: the runners connected here are all there are. */
  readonly runners?: LiveRunners;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The capture job service: queue, runner registry and tokens, lease sweeping, and result
 * application. Runners attach sockets; routes call `request`, `cancel` and `postResult`. Every
 * transition goes through the store, so the instance that takes a runner's result, a renewal or a
 * cancellation need not be the one where the capture was asked or the runner is connected.
 */
export class CaptureService {
  readonly queue: CaptureStores['jobs'];
  readonly tokens: RunnerTokenStore;
  readonly registry = new RunnerRegistry();
  readonly timings: JobTimings;
  private readonly signal: JobSignal | undefined;
  private readonly live: LiveRunners | undefined;
  /** Names this instance in the shared registry of live runners: host, process id and a random part. */
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(6).toString('base64url')}`;
  private readonly timer: NodeJS.Timeout;
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;
  private ticking = false;

  constructor(
    stores: CaptureStores,
    private readonly sink: CaptureSink,
    private readonly log: JobLogger,
    timings: Partial<JobTimings> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.queue = stores.jobs;
    this.tokens = stores.tokens;
    this.signal = stores.signal;
    this.live = stores.runners;
    this.timings = resolveTimings(timings);
    this.signal?.listen((notice) => this.onNotice(notice));
    this.timer = setInterval(() => void this.tick(), Math.max(20, Math.min(1000, Math.floor(this.timings.leaseMs / 4))));
    this.timer.unref();
  }

  /** Stops the sweep timer, closes every runner socket (taking them out of the shared registry) and stops listening for notices. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const runners = this.registry.all();
    for (const r of runners) r.socket.close(CloseCode.goingAway, CLOSE_REASONS[CloseCode.goingAway]);
    await this.signal?.close();
    if (this.live) {
      await Promise.allSettled(runners.map((r) => this.live?.drop(r.id, r.session)));
      await this.live.close();
    }
  }

  /** What the shared registry of live runners holds of a runner connected here. */
  private liveEntry(r: ConnectedRunner): LiveRunner {
    return { id: r.id, name: r.name, capabilities: r.capabilities, connectedAt: r.connectedAt, instanceId: this.instanceId };
  }

  /** Takes a runner connected here out of the shared registry (a failure is logged: its entry expires after a lease). */
  private unlist(r: ConnectedRunner): void {
    this.live?.drop(r.id, r.session).catch((err: unknown) => this.log.warn({ runner: r.name, err: messageOf(err) }, 'runner not taken out of the shared registry; it expires'));
  }

  private publish(job: JobRecord): void {
    this.sink.publish(job.roomId, toCaptureEntry(job));
  }

  /** Tells the other instances (a lost notice is made up for by their tick). */
  private async tell(notice: JobNotice): Promise<void> {
    if (!this.signal) return;
    try {
      await this.signal.notify(notice);
    } catch (err) {
      this.log.warn({ kind: notice.kind, err: messageOf(err) }, 'job notice not sent; other instances find it on their next tick');
    }
  }

  private onNotice(notice: JobNotice): void {
    if (notice.kind === 'queued') void this.dispatch();
    else this.registry.send(notice.runnerId, { type: 'cancel', jobId: notice.jobId, attempt: notice.attempt, reason: 'cancelled' });
  }

  /** Queues a capture for a room and hands it to an idle runner of this instance, or of another, if one is connected. */
  async request(roomId: string, request: CaptureRequest, requestedBy: string): Promise<JobRecord> {
    const job = await this.queue.enqueue(roomId, request, requestedBy, this.timings.maxAttempts);
    this.log.info({ jobId: job.id, roomId }, 'capture queued');
    this.publish(job);
    await this.tell({ kind: 'queued' });
    await this.dispatch();
    return (await this.queue.get(job.id)) ?? job;
  }

  /** Cancels a job; a running one is told to stop on its runner, wherever it is connected. Null when it was already final. */
  async cancel(jobId: string): Promise<JobRecord | null> {
    const before = await this.queue.cancel(jobId);
    if (!before) return null;
    if (before.status === 'running' && before.runnerId) {
      const stop = { type: 'cancel', jobId, attempt: before.attempt, reason: 'cancelled' } as const;
      if (!this.registry.send(before.runnerId, stop)) await this.tell({ kind: 'cancel', jobId, attempt: before.attempt, runnerId: before.runnerId });
    }
    const job = await this.queue.get(jobId);
    if (job) this.publish(job);
    this.log.info({ jobId }, 'capture cancelled');
    return job;
  }

  /**
   * Runners connected now, for the Capture panel's runner choice: to any instance in scaled mode
   * (the shared registry), else to this one.
   */
  async runners(): Promise<RunnerInfo[]> {
    const runners = this.live ? await this.live.list() : this.registry.all();
    return Promise.all(runners.map(async (r) => ({
      name: r.name, capabilities: r.capabilities, busy: (await this.queue.heldBy(r.id)).length > 0, connectedAt: r.connectedAt,
    })));
  }

  /**
   * Attaches an authenticated runner socket. Returns the handlers the transport calls for each
   * text frame and on close; the first frame must be `hello`. Frames are handled one after the
   * other, in order; `handled` resolves once every frame given so far is.
   */
  attach(token: RunnerTokenInfo, socket: RunnerSocket): { onMessage(data: string): void; onClose(): void; handled(): Promise<void> } {
    let runner: ConnectedRunner | undefined;
    let closed = false;
    let chain = Promise.resolve();
    const refuse = (code: CloseCode, message: string) => {
      socket.send(writeRunnerMessage({ type: 'error', code: CLOSE_REASONS[code], message }));
      socket.close(code, CLOSE_REASONS[code]);
    };
    const handle = async (data: string): Promise<void> => {
      if (closed) return;
      if (!(await this.tokens.isLive(token.id))) return refuse(CloseCode.tokenRevoked, 'runner token revoked');
      const msg = readAgentMessage(data);
      if (!msg) return refuse(CloseCode.malformedMessage, 'not a runner protocol frame');
      const problem = agentMessageProblem(msg);
      if (problem) return refuse(CloseCode.malformedMessage, problem);
      if (!runner) {
        if (msg.type !== 'hello') return refuse(CloseCode.malformedMessage, 'the first frame must be hello');
        const wrongName = registrationProblem(token, msg.name);
        if (wrongName) return refuse(CloseCode.unauthorized, wrongName);
        if (closed) return;
        const joined = this.connect(token, msg.name, msg.capabilities, socket);
        // Listed for every instance before it is welcomed; a hello the store cannot record is closed with 4500.
        await this.live?.put(joined.session, this.liveEntry(joined), this.timings.leaseMs);
        if (closed) return this.unlist(joined);
        runner = this.register(joined);
        return;
      }
      if (msg.type === 'hello') return refuse(CloseCode.malformedMessage, 'hello sent twice');
      if (msg.type === 'ready') {
        runner.ready = true;
        await this.dispatch();
      } else if (msg.type === 'heartbeat') {
        for (const ref of msg.jobs) {
          if (!(await this.queue.renew(runner.id, ref.jobId, ref.attempt, this.timings.leaseMs))) {
            socket.send(writeRunnerMessage({ type: 'cancel', jobId: ref.jobId, attempt: ref.attempt, reason: 'lease lost' }));
          }
        }
        await this.live?.renew(runner.session, this.liveEntry(runner), this.timings.leaseMs);
      } else if (msg.type === 'status') {
        const job = await this.queue.setPhase(runner.id, msg.jobId, msg.attempt, msg.phase);
        if (job) this.publish(job);
      }
    };
    return {
      onMessage: (data) => {
        chain = chain.then(() => handle(data)).catch((err: unknown) => {
          // The store could not answer: the frame is dropped (a heartbeat is sent again, a lost
          // `ready` is made up for by the tick), and a runner still saying hello is asked to come back.
          this.log.warn({ err: messageOf(err) }, 'runner frame not handled');
          if (!runner) socket.close(CloseCode.serverError, CLOSE_REASONS[CloseCode.serverError]);
        });
      },
      onClose: () => {
        closed = true;
        if (runner) {
          this.registry.remove(runner.id, socket);
          this.unlist(runner);
          this.log.info({ runner: runner.name }, 'runner disconnected');
        }
      },
      handled: () => chain,
    };
  }

  private connect(token: RunnerTokenInfo, name: string, capabilities: RunnerCapabilities, socket: RunnerSocket): ConnectedRunner {
    return {
      id: `${token.id}/${name}`, tokenId: token.id, name, capabilities, socket, connectedAt: this.now(), session: randomBytes(12).toString('base64url'), ready: false,
    };
  }

  private register(runner: ConnectedRunner): ConnectedRunner {
    const { name, capabilities, socket } = runner;
    const old = this.registry.add(runner);
    old?.socket.close(CloseCode.goingAway, 'replaced by a new connection');
    socket.send(writeRunnerMessage({ type: 'welcome', runnerId: runner.id, heartbeatMs: this.timings.heartbeatMs, leaseMs: this.timings.leaseMs }));
    this.log.info({ runner: name, platform: capabilities.platform, deviceKind: capabilities.deviceKind }, 'runner connected');
    return runner;
  }

  /**
   * Leases queued jobs to this instance's ready runners whose token is still live. One pass at a
   * time; a call during a pass makes one more pass after it, so a job queued meanwhile is seen.
   */
  private dispatch(): Promise<void> {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return this.dispatching;
    }
    this.dispatching = (async () => {
      try {
        do {
          this.dispatchAgain = false;
          await this.dispatchOnce();
        } while (this.dispatchAgain);
      } catch (err) {
        this.log.warn({ err: messageOf(err) }, 'leasing captures failed; the next tick tries again');
      } finally {
        this.dispatching = null;
      }
    })();
    return this.dispatching;
  }

  private async dispatchOnce(): Promise<void> {
    for (const r of this.registry.all()) {
      if (!r.ready) continue;
      if (!(await this.tokens.isLive(r.tokenId))) {
        r.socket.close(CloseCode.tokenRevoked, CLOSE_REASONS[CloseCode.tokenRevoked]);
        continue;
      }
      // Gone (closed, or replaced by a reconnect) while the token was checked.
      if (this.registry.get(r.id) !== r || !r.ready) continue;
      const job = await this.queue.lease(r.id, r.name, this.timings.leaseMs);
      if (!job) continue;
      r.ready = false;
      // A runner gone while it was leased the job never heartbeats it: the lease expires and is swept.
      if (this.registry.get(r.id) === r) r.socket.send(writeRunnerMessage({ type: 'job', jobId: job.id, attempt: job.attempt, request: job.request }));
      this.log.info({ jobId: job.id, attempt: job.attempt, runner: r.name }, 'capture leased');
      this.publish(job);
    }
  }

  /** Disconnects revoked runners, sweeps expired leases (on every instance; each job is swept by one), and offers queued jobs to idle runners. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const r of this.registry.all()) {
        if (!(await this.tokens.isLive(r.tokenId))) {
          this.registry.remove(r.id, r.socket);
          this.unlist(r);
          r.socket.close(CloseCode.tokenRevoked, CLOSE_REASONS[CloseCode.tokenRevoked]);
        }
      }
      const { requeued, failed } = await this.queue.sweep(this.timings.retryWaitMs);
      for (const job of requeued) {
        this.log.warn({ jobId: job.id, attempt: job.attempt }, 'runner lease expired; capture requeued');
        this.publish(job);
      }
      for (const job of failed) {
        this.log.warn({ jobId: job.id }, 'capture failed: runner lost');
        this.publish(job);
      }
      if (requeued.length > 0) await this.tell({ kind: 'queued' });
      // Also the fallback for a job queued on another instance whose notice was lost.
      if (requeued.length > 0 || (this.signal && this.registry.all().some((r) => r.ready))) await this.dispatch();
    } catch (err) {
      this.log.warn({ err: messageOf(err) }, 'capture sweep failed; the next tick tries again');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Applies a runner's result for one attempt, exactly once: the first post of the running attempt
   * ingests the artifacts as one capture group; later posts, and posts for stale attempts, change
   * nothing and get the job as it stands.
   */
  async postResult(token: RunnerTokenInfo, jobId: string, attempt: number, body: ResultBody): Promise<ResultOutcome | null> {
    const before = await this.queue.get(jobId);
    if (!before) return null;
    if (!leasedTo(before, token) || !(await this.queue.claimResult(jobId, attempt))) {
      return { applied: false, job: before };
    }
    const runnerName = before.runnerName ?? 'runner';
    // The runner's socket may be on another instance; its result then says what it ran on.
    const runner = before.runnerId ? this.registry.get(before.runnerId) : undefined;
    const provenance: CaptureProvenance = {
      ...(runner ? runner.capabilities : {}), ...(body.provenance ?? {}), runner: runnerName, xlaFlags: before.request.options.xlaFlags,
    };
    let job: JobRecord;
    if (!body.ok) {
      job = await this.queue.fail(jobId, body.error, provenance);
    } else {
      job = await this.ingest(before, runnerName, body, provenance);
    }
    this.log.info({ jobId, attempt, status: job.status }, 'capture result applied');
    this.publish(job);
    return { applied: true, job };
  }

  private async ingest(job: JobRecord, runnerName: string, body: Extract<ResultBody, { ok: true }>, provenance: CaptureProvenance): Promise<JobRecord> {
    const ids: string[] = [];
    try {
      for (const a of body.artifacts) {
        const doc = await this.sink.ingest(job.roomId, {
          title: a.title, text: a.text, kind: a.kind, addedBy: `runner:${runnerName}`, captureId: job.id,
        });
        ids.push(doc.id);
      }
    } catch (err) {
      const error: CaptureError = { reason: 'ingest-error', message: `storing the capture failed: ${messageOf(err)}` };
      return this.queue.fail(job.id, error, provenance);
    }
    await this.carry(job, ids);
    return this.queue.complete(job.id, ids, provenance, body.analyses ?? null);
  }

  /**
   * A re-run's annotations carried over from the capture it re-runs, before it is published as done
   * (so whoever sees it done sees them too). A failure to carry leaves the capture done, its dumps
   * stored, and the annotations where they were; it is logged and the card says nothing was carried.
   */
  private async carry(job: JobRecord, documents: readonly string[]): Promise<void> {
    const previous = job.versionOf === null ? null : await this.queue.get(job.versionOf);
    if (!previous || previous.roomId !== job.roomId) return;
    try {
      const counts = await this.sink.carry(job.roomId, previous, { id: job.id, documents });
      await this.queue.setCarried(job.id, counts);
      this.log.info({ jobId: job.id, previous: previous.id, ...counts }, 'annotations carried over');
    } catch (err) {
      this.log.warn({ jobId: job.id, previous: previous.id, err: messageOf(err) }, 'carrying annotations over failed');
    }
  }
}
