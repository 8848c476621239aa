import { afterEach, describe, expect, it } from 'vitest';
import { HEARTBEAT_TICK_MS, Heartbeat, type Pingable } from './heartbeat';

class FakeSocket implements Pingable {
  pings = 0;
  terminated = false;
  ping(): void {
    this.pings += 1;
  }
  terminate(): void {
    this.terminated = true;
  }
}

const PERIOD = 30_000;
const SLICES = PERIOD / HEARTBEAT_TICK_MS;

describe('Heartbeat', () => {
  let heartbeat: Heartbeat<FakeSocket> | undefined;
  afterEach(() => heartbeat?.stop());

  function setup(count: number) {
    const sockets = new Set(Array.from({ length: count }, () => new FakeSocket()));
    let now = 0;
    heartbeat = new Heartbeat(sockets, PERIOD, () => now);
    for (const s of sockets) heartbeat.alive(s);
    const hb = heartbeat;
    const tick = () => {
      now += PERIOD / SLICES;
      hb.tick();
    };
    return { sockets, hb, tick };
  }

  it('pings 2,000 sockets 7 at a time, each once per period', () => {
    const { sockets, tick } = setup(2000);
    const perTick: number[] = [];
    let before = 0;
    for (let i = 0; i < SLICES; i += 1) {
      tick();
      const total = [...sockets].reduce((n, s) => n + s.pings, 0);
      perTick.push(total - before);
      before = total;
    }
    expect(Math.max(...perTick)).toBe(7);
    expect([...sockets].every((s) => s.pings === 1)).toBe(true);
  });

  it('terminates a socket that has not answered its ping by its next turn, and keeps one that did', () => {
    const { sockets, hb, tick } = setup(3);
    const [a, b, c] = [...sockets] as [FakeSocket, FakeSocket, FakeSocket];
    for (let i = 0; i < SLICES; i += 1) tick();
    hb.alive(a);
    hb.alive(c);
    for (let i = 0; i < SLICES; i += 1) tick();
    expect([a.terminated, b.terminated, c.terminated]).toEqual([false, true, false]);
    expect([a.pings, b.pings, c.pings]).toEqual([2, 1, 2]);
  });

  it('gives a ping at least half a period before judging it when the turn comes early', () => {
    const { sockets, tick } = setup(400);
    const list = [...sockets];
    const last = list.at(-1) as FakeSocket;
    for (let i = 0; i < SLICES; i += 1) tick();
    expect(last.pings).toBe(1);
    // Everyone ahead of it leaves: its next turn is the first tick of the next sweep.
    for (const s of list.slice(0, -1)) sockets.delete(s);
    tick();
    expect(last.terminated).toBe(false);
    for (let i = 1; i < SLICES; i += 1) tick();
    tick();
    expect(last.terminated).toBe(true);
  });
});
