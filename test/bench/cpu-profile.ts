import type { Page } from 'playwright-core';

/** A CPU profile as Chromium's `Profiler.stop` returns it (the parts read here). */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }>;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

/** Runs `work` while Chromium's sampling profiler (CDP `Profiler`, 100 µs interval) records the page's main thread. */
export async function cpuProfile(page: Page, work: () => Promise<unknown>): Promise<CpuProfile> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await work();
    return (await cdp.send('Profiler.stop')).profile as CpuProfile;
  } finally {
    await cdp.detach();
  }
}

/** The `n` functions with the most self time in a profile, one line each: ms, share, name and where it is. */
export function topSelfTime(profile: CpuProfile, n: number): string[] {
  const byNode = new Map(profile.nodes.map((x) => [x.id, x.callFrame]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const f = byNode.get(samples[i]!);
    const us = deltas[i + 1] ?? 0;
    if (!f) continue;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([k, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / Math.max(1, total)).toFixed(1).padStart(5)}%  ${k}`);
}
