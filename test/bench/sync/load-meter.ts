import { PerformanceObserver, monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** How busy a load process itself was while it measured: if it saturates, latencies include its queueing. */
export interface LoadProcessUsage {
  /** CPU time of the load process over wall time, percent of one core. */
  readonly cpuPercent: number;
  /** 99th percentile of its event-loop delay beyond the sampling interval, ms. */
  readonly loopDelayP99: number;
  /** Longest event-loop delay beyond the sampling interval, ms. */
  readonly loopDelayMax: number;
  /** Longest garbage-collection pause, ms: tells a load process's own pauses from CPU starvation. */
  readonly gcMax: number;
  /** Largest V8 heap in use, sampled every second, bytes: what its GC pauses have to go through. */
  readonly heapMax: number;
}

/** Sampling interval of the event-loop delay histogram, ms; the histogram records whole intervals. */
const RESOLUTION_MS = 5;

/** Starts measuring the current process's CPU and event-loop delay. */
export class LoadMeter {
  private readonly cpu = process.cpuUsage();
  private readonly wall = performance.now();
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private gcMax = 0;
  private readonly gc = new PerformanceObserver((list) => this.gcSeen(list.getEntries()));
  private heapMax = process.memoryUsage().heapUsed;
  private readonly heapTimer = setInterval(() => {
    this.heapMax = Math.max(this.heapMax, process.memoryUsage().heapUsed);
  }, 1000);

  constructor() {
    this.loop.enable();
    this.gc.observe({ entryTypes: ['gc'] });
    this.heapTimer.unref();
  }

  private gcSeen(entries: readonly PerformanceEntry[]): void {
    for (const entry of entries) this.gcMax = Math.max(this.gcMax, entry.duration);
  }

  stop(): LoadProcessUsage {
    clearInterval(this.heapTimer);
    this.loop.disable();
    this.gcSeen(this.gc.takeRecords());
    this.gc.disconnect();
    const used = process.cpuUsage(this.cpu);
    const wallMs = performance.now() - this.wall;
    const beyond = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    return {
      cpuPercent: ((used.user + used.system) / 1000 / wallMs) * 100,
      loopDelayP99: beyond(this.loop.percentile(99)),
      loopDelayMax: beyond(this.loop.max),
      gcMax: this.gcMax,
      heapMax: Math.max(this.heapMax, process.memoryUsage().heapUsed),
    };
  }
}

/** Waits until `due` (a performance.now() time); returns at once when it has passed. */
export async function until(due: number): Promise<void> {
  const wait = due - performance.now();
  if (wait >= 1) await sleep(wait);
}

/** Resolves when `done()` holds, checking every `everyMs` (default 20), or after `timeoutMs`; true if it held. */
export async function waitFor(done: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() >= deadline) return false;
    await sleep(everyMs);
  }
  return true;
}
