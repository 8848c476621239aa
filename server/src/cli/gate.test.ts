import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, seam } from './seam-process';
import { computeGate, indexHlo, type GateResult } from '@seam/shared/ir';
import { runCli } from './run';
import { readTraceOpTimes } from './trace-op-times';

const root = REPO_ROOT;
// A real CPU capture of the naive attention (bf16[8192,128] ×3, YNN fusion off) as the harness wrote it.
const CAPTURE = join(root, 'test/fixtures/gate/attention-cpu');

/** Runs one command line in this process; resolves to its status and lines. */
async function inProcess(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const harnessOps = JSON.parse(readFileSync(join(CAPTURE, 'ops.json'), 'utf8')) as { name: string; module: string; totalUs: number; count: number }[];

describe('the per-op reader of a trace', () => {
  it('sums the same hlo_op events as the capture harness did', async () => {
    const rows = await readTraceOpTimes(join(CAPTURE, 'trace.json.gz'));
    expect(rows.map((r) => r.op)).toEqual(harnessOps.map((r) => r.name));
    for (const [i, r] of rows.entries()) {
      const h = harnessOps[i]!;
      expect(r).toMatchObject({ module: h.module, count: h.count });
      expect(r.totalUs).toBeCloseTo(h.totalUs, 2);
    }
  });
});

describe('seam gate', { timeout: 90_000 }, () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seam-gate-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the capture folder with `edit` applied to it. */
  function variant(name: string, edit: (d: string) => void): string {
    const d = join(dir, name);
    cpSync(CAPTURE, d, { recursive: true });
    edit(d);
    return d;
  }

  it('prints the ops it summed and every figure, and fails on CPU as the measurement says', async () => {
    const { code, stdout } = await seam('gate', CAPTURE);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`gate for convert_exponential_fusion (f32[8192,8192]{1,0}, line 159 of jit_attention) in ${CAPTURE}`);
    expect(lines[2]).toMatch(/^ {2}writes +convert_exponential_fusion +159 +3 +128,795\.6 +42,931\.9$/);
    expect(lines[3]).toMatch(/^ {2}reads +wrapped_reduce-window\.2 +160 +3 /);
    expect(lines[4]).toMatch(/^ {2}reads +convert_convert_fusion +163 +3 /);
    expect(stdout).toMatch(/estimate \(dump\) +805\.3 MB \(805,306,368 B\) +268,435,456 B × \(1 write \+ 2 reads\)/);
    expect(stdout).toMatch(/measured +3548\.0 MB .* 106,933\.2 µs × 33\.18 GB\/s measured copy bandwidth \(no nameplate figure for device kind cpu\)/);
    expect(stdout).toMatch(/cost model +2349\.7 MB/);
    expect(stdout).toMatch(/measured \/ estimate +4\.406/);
    expect(stdout).toMatch(/result +FAIL +340\.6% off, bar 20%/);
    expect(code).toBe(1);
  });

  it('--json gives the same figures as the gate function on the harness\'s own op table', async () => {
    const { code, stdout } = await seam('gate', CAPTURE, '--json', '--bar', '4');
    const report = JSON.parse(stdout) as { gate: GateResult; bandwidth: { bytesPerSecond: number } };
    const expected = computeGate({
      index: indexHlo(readFileSync(join(CAPTURE, 'hlo-opt.txt'), 'utf8'), 'hlo-opt').index,
      opTimes: harnessOps.map((r) => ({ module: r.module, op: r.name, totalUs: r.totalUs, count: r.count })),
      bandwidthBytesPerS: report.bandwidth.bytesPerSecond, runs: 3, bar: 4,
    });
    expect(report.gate.candidate).toEqual(expected.candidate);
    expect(report.gate.ops.map((o) => o.op)).toEqual(expected.ops.map((o) => o.op));
    expect(report.gate.measuredBytes / expected.measuredBytes).toBeCloseTo(1, 6);
    expect(report.gate.estimateBytes).toBe(expected.estimateBytes);
    expect(report.gate.pass).toBe(true);
    expect(code).toBe(0);
  });

  it('takes a chosen value', async () => {
    const { code, out } = await inProcess('gate', CAPTURE, '--value', 'dot_general.2', '--json');
    const g = (JSON.parse(out[0]!) as { gate: GateResult }).gate;
    expect(g.ops.map((o) => `${o.role} ${o.op}`)).toEqual(['writes dot_general.2', 'reads wrapped_convert.2']);
    expect(g.estimateBytes).toBe(2 * 8192 * 8192 * 4);
    expect(code).toBe(1);
  });

  it('refuses a folder that cannot give a gate, saying why, with status 3', async () => {
    const noBandwidth = variant('no-bandwidth', (d) => {
      const r = JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as { provenance: Record<string, unknown> };
      delete r.provenance.bandwidth;
      writeFileSync(join(d, 'result.json'), JSON.stringify(r));
    });
    const zeroBandwidth = variant('zero-bandwidth', (d) => {
      const r = JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as { provenance: { bandwidth: Record<string, unknown> } };
      r.provenance.bandwidth.bytesPerSecond = 0;
      writeFileSync(join(d, 'result.json'), JSON.stringify(r));
    });
    const noTrace = variant('no-trace', (d) => rmSync(join(d, 'trace.json.gz')));
    const truncated = variant('truncated', (d) => {
      const gz = readFileSync(join(d, 'trace.json.gz'));
      writeFileSync(join(d, 'trace.json.gz'), gz.subarray(0, gz.length >> 1));
    });
    const otherModule = variant('other-module', (d) => {
      writeFileSync(join(d, 'trace.json'), JSON.stringify({ traceEvents: [{ ph: 'X', pid: 1, tid: 1, ts: 0, dur: 5, name: 'convert_exponential_fusion', args: { hlo_op: 'convert_exponential_fusion', hlo_module: 'jit_other' } }] }));
      rmSync(join(d, 'trace.json.gz'));
    });
    const cases: Array<[string[], RegExp]> = [
      [[join(dir, 'absent')], /cannot read .*hlo-opt\.txt/],
      [[noBandwidth], /result\.json has no provenance\.bandwidth/],
      [[zeroBandwidth], /provenance\.bandwidth is not a usable measurement \(bytesPerSecond: /],
      [[noTrace], /no trace in the folder/],
      [[truncated], /trace\.json\.gz: not a readable gzip file/],
      [[otherModule], /op-not-in-trace: the trace has no events for convert_exponential_fusion, wrapped_reduce-window\.2, convert_convert_fusion of module jit_attention/],
      [[CAPTURE, '--value', 'softmax'], /unknown-candidate: softmax is not a spill candidate/],
    ];
    for (const [args, message] of cases) {
      const { code, out, err } = await inProcess('gate', ...args);
      expect(out, args.join(' ')).toEqual([]);
      expect(err.join('\n'), args.join(' ')).toMatch(message);
      expect(code, args.join(' ')).toBe(3);
    }
    const json = await inProcess('gate', noTrace, '--json');
    expect(JSON.parse(json.out[0]!)).toEqual({ dir: noTrace, error: expect.stringMatching(/no trace in the folder/) as unknown });
    expect(json.code).toBe(3);
  });

  it('reads a bad command line as usage, status 2', async () => {
    const { code, err } = await inProcess('gate', CAPTURE, '--bar', 'loose');
    expect(err[0]).toMatch(/--bar needs a non-negative fraction/);
    expect(code).toBe(2);
  });
});
