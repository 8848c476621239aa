import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`; 100 on Linux everywhere in practice). */
const CLOCK_TICKS = 100;

/** Resident set size of a process in bytes, from `/proc/<pid>/status` (`VmRSS`), or NaN once it is gone. */
export function rssBytes(pid: number): number {
  return statusField(pid, 'VmRSS');
}

/** Peak resident set size of a process in bytes (`VmHWM`), or NaN once it is gone. */
export function peakRssBytes(pid: number): number {
  return statusField(pid, 'VmHWM');
}

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is parenthesised and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function statusField(pid: number, name: string): number {
  try {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** What a {@link ProcessSampler} saw over its window. */
export interface ProcessUsage {
  /** CPU time over wall time, in percent of one core. */
  readonly cpuPercent: number;
  /** CPU time used in the window, seconds: the work done, whatever else ran on the machine. */
  readonly cpuSeconds: number;
  /** Largest RSS sampled during the window, in bytes. */
  readonly maxRss: number;
  /** RSS at the end of the window, in bytes. */
  readonly endRss: number;
  readonly seconds: number;
}

/** Samples a process's RSS every `intervalMs` (default 500) and its CPU time between start and stop. */
export class ProcessSampler {
  private readonly startCpu: number;
  private readonly startWall = performance.now();
  private maxRss: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number, intervalMs = 500) {
    this.startCpu = cpuSeconds(pid);
    this.maxRss = rssBytes(pid);
    this.timer = setInterval(() => {
      this.maxRss = Math.max(this.maxRss, rssBytes(pid));
    }, intervalMs);
  }

  stop(): ProcessUsage {
    clearInterval(this.timer);
    const seconds = (performance.now() - this.startWall) / 1000;
    const endRss = rssBytes(this.pid);
    const used = cpuSeconds(this.pid) - this.startCpu;
    return {
      cpuPercent: (used / seconds) * 100,
      cpuSeconds: used,
      maxRss: Math.max(this.maxRss, endRss),
      endRss,
      seconds,
    };
  }
}
