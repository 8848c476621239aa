import { describe, expect, it } from 'vitest';
import { MAX_PINGS, openInPerfetto, PERFETTO_ORIGIN, PerfettoOpenError, type HandshakeHost, type PerfettoTab, type PerfettoTrace } from './perfetto-open';

type Listener = (e: { data: unknown; source: unknown; origin: string }) => void;

/** A stand-in for the page's window: the real Perfetto UI cannot be reached from here. */
class FakeHost implements HandshakeHost {
  readonly opened: string[] = [];
  readonly posted: { message: unknown; origin: string }[] = [];
  readonly listeners = new Set<Listener>();
  readonly timers = new Map<number, () => void>();
  private next = 1;
  readonly tab: PerfettoTab = { postMessage: (message, origin) => this.posted.push({ message, origin }) };
  constructor(private readonly blocked = false) {}
  open(url: string): PerfettoTab | null {
    this.opened.push(url);
    return this.blocked ? null : this.tab;
  }
  addEventListener(_: 'message', l: Listener) { this.listeners.add(l); }
  removeEventListener(_: 'message', l: Listener) { this.listeners.delete(l); }
  setInterval(h: () => void): number { this.timers.set(this.next, h); return this.next++; }
  clearInterval(id: number) { this.timers.delete(id); }
  tick(n = 1) { for (let i = 0; i < n; i++) for (const h of [...this.timers.values()]) h(); }
  send(data: unknown, source: unknown = this.tab, origin = PERFETTO_ORIGIN) { for (const l of [...this.listeners]) l({ data, source, origin }); }
}

const TRACE: PerfettoTrace = { buffer: new Uint8Array([0x1f, 0x8b, 8]).buffer, title: 'attention trace', fileName: 'attention.trace.json.gz' };

describe('openInPerfetto', () => {
  it('opens the tab at once, pings until that tab answers PONG, then posts the trace once and stops', async () => {
    const host = new FakeHost();
    const done = openInPerfetto(host, () => Promise.resolve(TRACE));
    expect(host.opened).toEqual([PERFETTO_ORIGIN]);
    host.tick(3);
    expect(host.posted).toEqual(Array.from({ length: 3 }, () => ({ message: 'PING', origin: PERFETTO_ORIGIN })));
    // A PONG from another window or origin, or another message, is not the answer.
    host.send('PONG', {});
    host.send('PONG', host.tab, 'https://evil.example');
    host.send('HELLO');
    host.tick();
    expect(host.posted).toHaveLength(4);
    host.send('PONG');
    await done;
    expect(host.posted.at(-1)).toEqual({ message: { perfetto: TRACE }, origin: PERFETTO_ORIGIN });
    expect(host.timers.size).toBe(0);
    expect(host.listeners.size).toBe(0);
    host.tick(5);
    expect(host.posted).toHaveLength(5);
  });

  it('waits for the bytes when Perfetto answers first', async () => {
    const host = new FakeHost();
    let give: (t: PerfettoTrace) => void = () => {};
    const done = openInPerfetto(host, () => new Promise((r) => (give = r)));
    host.tick();
    host.send('PONG');
    expect(host.posted).toHaveLength(1);
    give(TRACE);
    await done;
    expect(host.posted[1]!.message).toEqual({ perfetto: TRACE });
  });

  it('names a blocked tab, a tab that never answers and a failed download', async () => {
    await expect(openInPerfetto(new FakeHost(true), () => Promise.resolve(TRACE))).rejects.toThrow(new PerfettoOpenError('the browser blocked the new tab for Perfetto UI'));
    const silent = new FakeHost();
    const never = openInPerfetto(silent, () => Promise.resolve(TRACE));
    silent.tick(MAX_PINGS + 1);
    await expect(never).rejects.toThrow(/Perfetto UI did not answer/);
    expect(silent.listeners.size).toBe(0);
    const failing = new FakeHost();
    await expect(openInPerfetto(failing, () => Promise.reject(new Error('not found')))).rejects.toThrow('not found');
    expect(failing.timers.size).toBe(0);
  });
});
