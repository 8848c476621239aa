import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '@seam/shared/ir';
import type { TestClient } from '../helpers';
import { ATTENTION, captureGroup, documentAnalysis, documentText, requestCapture, startCaptureRoom, waitJob, type CaptureRoom, type CaptureServer } from '../helpers/capture-kit';

/** Bytes per element of the HLO element types the score matrix can have. */
const ELEMENT_BYTES: Record<string, number> = { bf16: 2, f16: 2, f32: 4, f64: 8 };

/** Names of every instruction an HLO text defines, e.g. `fusion.3` from `  %fusion.3 = f32[…] fusion(…)`. */
function instructionNames(hlo: string): Set<string> {
  const names = new Set<string>();
  for (const m of hlo.matchAll(/^\s*(?:ROOT\s+)?%?([A-Za-z0-9_.\-]+)\s*=/gm)) names.add(m[1]!);
  return names;
}

describe('naive attention captured on a real runner', () => {
  let room: CaptureRoom | undefined;
  let s: CaptureServer;
  let viewer: TestClient;

  beforeAll(async () => {
    room = await startCaptureRoom('cpu-attn');
    ({ s, viewer } = room);
  });
  afterAll(async () => {
    await room?.close();
  });

  it('at S=8192, D=128, bf16, compile only: the top spill candidate is the 8192×8192 score matrix, sized from its dtype', async () => {
    const spec = { shape: [8192, 128], dtype: 'bfloat16' as const };
    // XLA:CPU would otherwise fold all of naive attention into one kCustom YNN fusion, hiding the
    // kernel boundary that accelerators have; the flag travels through the request's xlaFlags.
    const { body } = await requestCapture(s, {
      program: ATTENTION, entry: 'attention', args: [spec, spec, spec], capture: ['hlo-opt'],
      options: { xlaFlags: '--xla_cpu_experimental_ynn_fusion_type=' },
    });
    const job = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(job.error).toBeUndefined();
    const [opt] = await captureGroup(viewer, job);
    expect(opt?.kind).toBe('hlo-opt');
    const analysis = await documentAnalysis<Analysis>(s, opt!.id);
    const top = analysis.index.spills[0];
    expect(top).toBeDefined();
    const m = /^(\w+)\[8192,8192\]/.exec(top!.type);
    expect(m, `top spill type ${top!.type}`).not.toBeNull();
    expect(top!.bytes).toBe(8192 * 8192 * ELEMENT_BYTES[m![1]!]!);
    const text = await documentText(s, opt!.id);
    expect(text).toContain(`${m![1]}[8192,8192]`);
  });

  it('a trace capture at S=1024 runs it and yields a per-op table whose names are all instructions of the optimized HLO', async () => {
    const spec = { shape: [1024, 128], dtype: 'bfloat16' as const };
    const { body } = await requestCapture(s, { program: ATTENTION, entry: 'attention', args: [spec, spec, spec], capture: ['hlo-opt', 'trace'], options: { repeats: 3 } });
    const job = await waitJob(s, body.job.id, ['done', 'failed', 'cancelled']);
    expect(job.error).toBeUndefined();
    const docs = await captureGroup(viewer, job);
    const opt = docs.find((d) => d.kind === 'hlo-opt')!;
    const trace = docs.find((d) => d.kind === 'trace')!;
    const table = docs.find((d) => d.title.endsWith('per-op device time'))!;
    expect(trace).toBeDefined();
    // The room shows the trace one event per line, the same JSON as the profiler wrote.
    const traceText = await documentText(s, trace.id);
    const events = (JSON.parse(traceText) as { traceEvents: unknown[] }).traceEvents;
    expect(events.length).toBeGreaterThan(0);
    expect(traceText.trimEnd().split('\n')).toHaveLength(events.length + 2);

    const rows = JSON.parse(await documentText(s, table.id)) as { name: string; module: string; count: number; totalUs: number; meanUs: number }[];
    expect(rows.length).toBeGreaterThan(0);
    const names = instructionNames(await documentText(s, opt.id));
    for (const row of rows) {
      expect(names.has(row.name), `${row.name} in the optimized HLO`).toBe(true);
      expect(row.count).toBeGreaterThanOrEqual(3);
      expect(row.meanUs).toBeCloseTo(row.totalUs / row.count, 1);
    }
    expect(rows.some((r) => r.module.startsWith('jit_attention'))).toBe(true);
    // The copy bandwidth measured beside the trace reaches the room in the capture's provenance.
    const bandwidth = job.provenance?.bandwidth;
    expect(bandwidth).toMatchObject({ deviceKind: 'cpu', nameplateBytesPerSecond: null, fractionOfNameplate: null });
    // `seconds` is rounded to the nanosecond, so the rate it gives back agrees to a part in 10^6.
    const rate = bandwidth!.bytes / bandwidth!.seconds;
    expect(Math.abs(bandwidth!.bytesPerSecond - rate)).toBeLessThanOrEqual(rate * 1e-6);
  });
});
