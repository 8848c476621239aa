import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyze, computeGate, indexHlo, type Analysis, type OpTime } from '../../ir/index';
import type { Annotation } from '../../model/annotation';
import type { DocumentKind, DocumentMeta } from '../../model/document';
import type { GateReport } from '../../model/gate-report';
import type { CaptureEntry, CaptureKind } from '../../model/jobs';
import { statedBytes } from './checks';
import { evaluateLab } from './evaluate';
import { parseLab, type Lab } from './lab-format';
import type { LabRoomData } from './room-data';

const fixture = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8');
const lab = (file: string): Lab => parseLab(file, readFileSync(new URL(`../../../../labs/${file}`, import.meta.url), 'utf8'));

const LAYER_FILES: Partial<Record<DocumentKind, string>> = { jaxpr: 'jaxpr.txt', stablehlo: 'stablehlo.mlir', 'hlo-opt': 'hlo-opt.txt' };

/** A room holding one finished capture of `lab`'s first capture, its dumps read from the real capture in `dir`. */
function roomWith(l: Lab, dir: string, opts: { status?: CaptureEntry['status']; kinds?: readonly DocumentKind[]; annotations?: Annotation[]; gates?: Map<string, GateReport> } = {}) {
  const spec = l.captures[0]!;
  const kinds = opts.kinds ?? (['jaxpr', 'stablehlo', 'hlo-opt'] as DocumentKind[]).filter((k) => spec.capture.includes(k as CaptureKind));
  const documents: DocumentMeta[] = kinds.map((kind) => ({ id: `doc-${kind}`, title: `${spec.entry}: ${kind}`, kind, bytes: 1, sha256: kind, createdAt: 1, captureId: 'cap_1' }));
  const analyses = new Map<string, Analysis>(kinds.map((kind) => [`doc-${kind}`, analyze(fixture(`${dir}/${LAYER_FILES[kind]}`), kind)]));
  const capture: CaptureEntry = {
    id: 'cap_1', status: opts.status ?? 'done', attempt: 1, entry: spec.entry, args: spec.args, capture: spec.capture, requestedBy: 'owner',
    createdAt: 1, updatedAt: 2, documents: documents.map((d) => d.id),
  };
  const data: LabRoomData = { captures: [capture], documents, analysisOf: (id) => analyses.get(id), annotations: opts.annotations ?? [], gates: opts.gates ?? new Map() };
  return { data, analyses };
}

const author = (id: string) => ({ id, name: `Person ${id}`, color: '#123456' });
function spillNote(by: string, docId: string, instruction: string, body: string, extra: Partial<Annotation> = {}): Annotation {
  return {
    id: `a-${by}-${instruction}`, docId, from: 0, to: 1, quote: { prefix: '', exact: '', suffix: '' }, kind: 'spill', body, author: author(by),
    createdAt: 1, resolved: false, replies: [], instruction, ...extra,
  };
}

describe('LAB·2.1 checks on a real capture of the MLP', () => {
  const l = lab('lab-2.1.json');

  it('checks the capture and the mapping once the three layers are analysed', () => {
    const r = evaluateLab(l, roomWith(l, 'lab/mlp').data, 5);
    expect(r.room['capture']).toEqual({ done: true, detail: 'f was captured' });
    expect(r.room['mapping']?.done).toBe(true);
    expect(r.room['mapping']?.detail).toMatch(/^all 1 dot_general equations map to StableHLO and HLO \(the StableHLO has no locations/);
    expect(r.evaluatedAt).toBe(5);
  });

  it('leaves both open while the capture runs, and the mapping open without its optimized HLO', () => {
    const running = evaluateLab(l, roomWith(l, 'lab/mlp', { status: 'running' }).data, 0);
    expect(running.room['capture']?.done).toBe(false);
    expect(running.room['mapping']?.done).toBe(false);
    const noHlo = evaluateLab(l, roomWith(l, 'lab/mlp', { kinds: ['jaxpr', 'stablehlo'] }).data, 0);
    expect(noHlo.room['capture']?.done).toBe(true);
    expect(noHlo.room['mapping']).toEqual({ done: false, detail: 'the analyses of the capture are not ready yet' });
  });

  it('does not count a capture of another shape or a StableHLO with fewer products than the jaxpr', () => {
    const other = roomWith(l, 'lab/mlp');
    const wider = { ...other.data, captures: other.data.captures.map((c) => ({ ...c, args: [{ dtype: 'bfloat16' as const, shape: [64, 64] }, ...c.args.slice(1)] })) };
    expect(evaluateLab(l, wider, 0).room['capture']?.done).toBe(false);
    // The MLP's jaxpr against the attention's StableHLO: the joins and counts no longer line up.
    const { data, analyses } = roomWith(l, 'lab/mlp');
    analyses.set('doc-hlo-opt', analyze(fixture('lab/attention/hlo-opt.txt'), 'hlo-opt'));
    analyses.set('doc-stablehlo', analyze('module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n    return %arg0 : tensor<2xf32>\n  }\n}\n', 'stablehlo'));
    const r = evaluateLab(l, data, 0).room['mapping'];
    expect(r?.done).toBe(false);
    expect(r?.detail).toMatch(/^1 of 1 dot_general equations have no StableHLO or HLO counterpart \(d\)$/);
  });
});

describe('LAB·2.2 checks each member\'s own spill annotation', () => {
  const l = lab('lab-2.2.json');
  const S2BF16 = 8192 * 8192 * 2;

  it('finds the S×S spills in the real optimized HLO and checks each author on their own', () => {
    const { analyses } = roomWith(l, 'lab/attention');
    const sxs = analyses.get('doc-hlo-opt')!.index.spills.filter((s) => s.type.startsWith('bf16[8192,8192]'));
    expect(sxs.map((s) => s.bytes)).toEqual([S2BF16]);
    const producer = sxs[0]!.producer;
    const annotations = [
      spillNote('ana', 'doc-hlo-opt', producer, 'scores spill here, my estimate: 128 MiB written, read back twice'),
      spillNote('ben', 'doc-hlo-opt', producer, 'I guessed 64 MB'),
      spillNote('cai', 'doc-hlo-opt', 'dot_general.3', 'the output, 4 MiB'),
    ];
    const r = evaluateLab(l, roomWith(l, 'lab/attention', { annotations }).data, 0);
    expect(r.room['capture']?.done).toBe(true);
    expect(r.room['spill']).toBeUndefined();
    expect(r.members['ana']?.steps['spill']).toEqual({ done: true, detail: 'your estimate is within 0.0% of the 134,217,728 bytes the dump gives' });
    expect(r.members['ana']?.name).toBe('Person ana');
    expect(r.members['ben']?.steps['spill']).toEqual({ done: false, detail: 'your estimate is 52.3% from the size the dump gives (the bar is 20%)' });
    expect(r.members['cai']?.steps['spill']).toEqual({ done: false, detail: 'no spill annotation of yours sits on the [8192,8192] value' });
  });

  it('takes the f32 scores at their own size, and the analysis\'s bytes when the body states none', () => {
    const annotations = [
      spillNote('dee', 'doc-hlo-opt', 'convert_exponential_fusion', 'f32 scores: 256 MiB'),
      spillNote('eve', 'doc-hlo-opt', 'convert_exponential_fusion', 'the exponentials', { bytes: 268_435_456 }),
      spillNote('fay', 'doc-hlo-opt', 'convert_exponential_fusion', 'the exponentials'),
      spillNote('gus', 'doc-hlo-opt', 'convert_exponential_fusion', 'resolved already: 256 MiB', { kind: 'note' }),
    ];
    const r = evaluateLab(l, roomWith(l, 'lab/attention', { annotations }).data, 0);
    expect(r.members['dee']?.steps['spill']?.done).toBe(true);
    expect(r.members['eve']?.steps['spill']?.done).toBe(true);
    expect(r.members['fay']?.steps['spill']).toEqual({ done: false, detail: 'your spill annotation states no size: write your estimate, e.g. "128 MiB"' });
    expect(r.members['gus']?.steps['spill']?.done).toBe(false);
  });

  it('evaluates a member whose id is __proto__ like any other', () => {
    const annotations = [spillNote('__proto__', 'doc-hlo-opt', 'wrapped_convert.2', '128 MiB'), spillNote('ada', 'doc-hlo-opt', 'wrapped_convert.2', '1 GiB')];
    const r = evaluateLab(l, roomWith(l, 'lab/attention', { annotations }).data, 0);
    expect(Object.keys(r.members).sort()).toEqual(['__proto__', 'ada']);
    expect(r.members['__proto__']?.steps['spill']?.done).toBe(true);
    expect(r.members['ada']?.steps['spill']?.done).toBe(false);
    expect(({} as Record<string, unknown>)['steps']).toBeUndefined();
  });

  it('reads the first size a body states', () => {
    expect(statedBytes({ body: 'about 134 MB, so 268 MB of traffic' })).toBe(134e6);
    expect(statedBytes({ body: '= 2**27 bytes' })).toBe(2 ** 27);
    expect(statedBytes({ body: '134,217,728 B (128 MiB)' })).toBe(134_217_728);
    expect(statedBytes({ body: 'S = 8192, D = 128', bytes: 7 })).toBe(7);
    expect(statedBytes({ body: 'no figure' })).toBeUndefined();
  });
});

describe('LAB·2.3 checks the room\'s gate', () => {
  // A real CPU capture of naive attention with its trace: the gate is computed from its ops and bandwidth.
  const capture = 'gate/attention-cpu';
  const job = JSON.parse(fixture('gate/attention-cpu.job.json')) as { program: string; entry: string; args: string[] };
  const l = parseLab('traced.json', JSON.stringify({
    id: 'traced', code: 'T', title: 'Traced', summary: 'The gate on a real trace.', programs: { attention: job.program },
    captures: [{ id: 'attention', program: 'attention', entry: job.entry, args: job.args, capture: ['hlo-opt', 'cost', 'trace'] }],
    steps: [{ id: 'gate', title: 'Close the gate', question: 'Does it pass?', check: { kind: 'gate-passed', capture: 'attention' } }],
  }));
  const index = indexHlo(fixture(`${capture}/hlo-opt.txt`), 'hlo-opt').index;
  const ops = JSON.parse(fixture(`${capture}/ops.json`)) as { name: string; module: string; totalUs: number; count: number }[];
  const opTimes: OpTime[] = ops.map((r) => ({ module: r.module, op: r.name, totalUs: r.totalUs, count: r.count }));
  const result = JSON.parse(fixture(`${capture}/result.json`)) as { provenance: { bandwidth: GateReport['sources']['bandwidth'] } };
  const reportAt = (bar: number): GateReport => {
    const gate = computeGate({ index, opTimes, bandwidthBytesPerS: result.provenance.bandwidth.bytesPerSecond, runs: 3, bar });
    return { captureId: 'cap_1', gate, sources: { hloOpt: { documentId: 'doc-hlo-opt', title: 'h' }, trace: { documentId: 't', title: 't' }, bandwidth: result.provenance.bandwidth, runs: 3 }, candidates: [] };
  };
  const off = Math.abs(reportAt(0.2).gate.measuredBytes / reportAt(0.2).gate.estimateBytes - 1);

  it('passes when the room\'s gate passed and says by how much', () => {
    const bar = off + 0.01;
    const r = evaluateLab(l, roomWith(l, 'lab/attention-trace', { gates: new Map([['cap_1', reportAt(bar)]]) }).data, 0);
    expect(r.room['gate']?.done).toBe(true);
    expect(r.room['gate']?.detail).toBe(`the gate passed: measured within ${(off * 100).toFixed(1)}% of the estimate (bar ${(bar * 100).toFixed(1)}%)`);
  });

  it('stays open when the gate failed, could not be computed, or was never computed', () => {
    const failed = evaluateLab(l, roomWith(l, 'lab/attention-trace', { gates: new Map([['cap_1', reportAt(off / 2)]]) }).data, 0);
    expect(failed.room['gate']?.done).toBe(false);
    expect(failed.room['gate']?.detail).toMatch(/^the gate did not pass/);
    const { data } = roomWith(l, 'lab/attention-trace');
    const unavailable = evaluateLab(l, { ...data, gates: new Map([['cap_1', { captureId: 'cap_1', reason: 'no-trace' as const, message: 'no reduced trace' }]]) }, 0);
    expect(unavailable.room['gate']).toEqual({ done: false, detail: 'the gate cannot be computed: no reduced trace' });
    expect(evaluateLab(l, data, 0).room['gate']).toEqual({ done: false, detail: 'no gate has been computed for the traced capture yet' });
  });
});
