import { create, toBinary } from '@bufbuild/protobuf';
import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { seededRandom } from '@seam/shared/teaching';
import {
  XEventMetadataSchema, XEventSchema, XLineSchema, XPlaneSchema, XSpaceSchema, XStatMetadataSchema, XStatSchema, type XEventMetadata, type XPlane, type XSpace, type XStat, type XStatMetadata,
} from '../../shared/src/trace/gen/xplane_pb';

/**
 * A synthetic profiler trace shaped like what JAX writes for a training loop on a few devices,
 * the same events written both as Perfetto JSON and as an XSpace (`xplane.pb`): per device an
 * "XLA Ops" line (HLO ops, tagged `hlo_op`/`hlo_module`, back to back), a compute stream with the
 * same ops' kernels and a "Steps" line (one `step_num` marker a step); a host plane whose Python
 * and client threads run framework and PjRt events with no op. Seeded, so every run writes the same.
 */
export interface GeneratedTrace {
  readonly events: number;
  readonly steps: number;
  /** Per (module, op): occurrences and total µs, as written. */
  readonly ops: Map<string, { module: string; op: string; count: number; totalUs: number }>;
}

const DEVICES = 4;
const MODULES = ['jit_train_step', 'jit_eval_step'];
const OP_KINDS = ['fusion', 'convolution', 'dot', 'copy', 'all-reduce', 'reduce', 'transpose', 'dynamic-update-slice', 'custom-call', 'loop_fusion', 'input_fusion'];
const HOST_NAMES = ['$profiler.py:307 trace', 'PjitFunction(train_step)', 'ThreadpoolListener::StartRegion', 'TfrtCpuExecutable::ExecuteHelper', '$api.py:1290 device_put', 'BufferFromPyval'];
const SRC = 'external/xla/xla/service/gpu/gpu_executable.cc';

/** One event as both formats need it: µs on a track, its name, op and module, step. */
interface Ev { track: number; ts: number; dur: number; name: string; op?: string; module?: string; step?: number }

interface Track { pid: number; tid: number; process: string; thread: string }

function tracks(): Track[] {
  const out: Track[] = [];
  for (let d = 0; d < DEVICES; d++) {
    const process = `/device:GPU:${d}`;
    out.push({ pid: d + 1, tid: 1, process, thread: 'XLA Ops' }, { pid: d + 1, tid: 2, process, thread: 'Stream #13(Compute)' }, { pid: d + 1, tid: 3, process, thread: 'Steps' });
  }
  const host = DEVICES + 1;
  out.push({ pid: host, tid: 100, process: '/host:CPU', thread: 'python' });
  for (let t = 0; t < 3; t++) out.push({ pid: host, tid: 101 + t, process: '/host:CPU', thread: `tf_XLAPjRtGpuClient/${6355277867737498284n + BigInt(t)}` });
  return out;
}

/** Yields the events in batches, per step: ops on every device (on its op line and as its stream's kernel), host events beside. */
function* generate(total: number, ops: GeneratedTrace['ops']): Generator<Ev[]> {
  const rnd = seededRandom(16);
  const opNames = Array.from({ length: 400 }, (_, i) => `${OP_KINDS[i % OP_KINDS.length]}.${i}`);
  const opUs = opNames.map(() => 1 + 200 * rnd() ** 3);
  const host = DEVICES * 3;
  let made = 0;
  let step = 0;
  let t0 = 1000;
  while (made < total) {
    const batch: Ev[] = [];
    const module = MODULES[step % 10 === 9 ? 1 : 0]!;
    let end = t0;
    for (let d = 0; d < DEVICES && made < total; d++) {
      let ts = t0 + 5 * rnd();
      for (let k = 0; k < 200 && made + 3 <= total; k++) {
        const i = Math.floor(rnd() * opNames.length);
        const op = opNames[i]!;
        const dur = Math.round(opUs[i]! * (0.8 + 0.4 * rnd()) * 1000) / 1000;
        batch.push({ track: d * 3, ts: Math.round(ts * 1000) / 1000, dur, name: op, op, module });
        batch.push({ track: d * 3 + 1, ts: Math.round((ts + 0.5) * 1000) / 1000, dur: Math.round(dur * 900) / 1000, name: `${op.split('.')[0]}_kernel_${i}` });
        batch.push({ track: host + 1 + (k % 3), ts: Math.round((ts - 2) * 1000) / 1000, dur: 1.5, name: HOST_NAMES[3]! });
        made += 3;
        const key = `${module}\u0000${op}`;
        const s = ops.get(key) ?? { module, op, count: 0, totalUs: 0 };
        s.count += 1;
        s.totalUs += dur;
        ops.set(key, s);
        ts += dur + 0.25;
      }
      end = Math.max(end, ts);
    }
    for (let d = 0; d < DEVICES && made < total; d++) {
      batch.push({ track: d * 3 + 2, ts: t0, dur: Math.round((end - t0) * 1000) / 1000, name: `${step}`, step });
      made += 1;
    }
    for (let h = 0; h < 40 && made < total; h++) {
      batch.push({ track: host, ts: Math.round((t0 + h * 20) * 1000) / 1000, dur: 12.5, name: HOST_NAMES[h % HOST_NAMES.length]! });
      made += 1;
    }
    yield batch;
    step += 1;
    t0 = end + 50;
  }
}

/** Writes the trace as Perfetto JSON to `jsonPath` and as an XSpace to `xplanePath`. */
export async function writeTrace(total: number, jsonPath: string, xplanePath: string): Promise<GeneratedTrace> {
  const ops: GeneratedTrace['ops'] = new Map();
  const all = tracks();
  const out = createWriteStream(jsonPath, { highWaterMark: 4 * 1024 * 1024 });
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},\n"traceEvents":[\n');
  const meta = new Set<number>();
  for (const t of all) {
    if (!meta.has(t.pid)) await write(`{"args":{"name":${JSON.stringify(t.process)}},"name":"process_name","ph":"M","pid":${t.pid}},\n`);
    meta.add(t.pid);
    await write(`{"args":{"name":${JSON.stringify(t.thread)}},"name":"thread_name","ph":"M","pid":${t.pid},"tid":${t.tid}},\n`);
  }
  // Per XSpace line: its events (offset ps, duration ps, metadata id).
  const lineEvents = all.map(() => [] as Ev[]);
  let events = 0;
  let steps = 0;
  let first = true;
  for (const batch of generate(total, ops)) {
    let s = '';
    for (const e of batch) {
      const t = all[e.track]!;
      const args = e.op !== undefined
        ? `{"hlo_op":"${e.op}","hlo_module":"${e.module}","device_ordinal":"${t.pid - 1}","_src":"${SRC}"}`
        : e.step !== undefined ? `{"step_num":${e.step}}` : '{}';
      s += `${first ? '' : ',\n'}{"ph":"X","pid":${t.pid},"tid":${t.tid},"ts":${e.ts},"dur":${e.dur},"name":"${e.name}","args":${args}}`;
      first = false;
      lineEvents[e.track]!.push(e);
      events += 1;
      if (e.step !== undefined && e.track === 2) steps += 1;
    }
    await write(s);
  }
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
  writeFileSync(xplanePath, toBinary(XSpaceSchema, xspace(all, lineEvents)));
  return { events, steps, ops };
}

/** The same events as an XSpace: a plane a process, a line a thread, an event metadata a name. */
function xspace(all: readonly Track[], lineEvents: readonly Ev[][]): XSpace {
  const planes: XPlane[] = [];
  const byPid = new Map<number, number[]>();
  all.forEach((t, i) => byPid.set(t.pid, [...(byPid.get(t.pid) ?? []), i]));
  for (const [pid, trackIds] of byPid) {
    const statMetadata: Record<string, XStatMetadata> = {};
    const statIds = new Map<string, bigint>();
    const stat = (name: string): bigint => {
      let id = statIds.get(name);
      if (id === undefined) {
        id = BigInt(statIds.size + 1);
        statIds.set(name, id);
        statMetadata[String(id)] = create(XStatMetadataSchema, { id, name });
      }
      return id;
    };
    const [hloOp, hloModule, stepNum] = [stat('hlo_op'), stat('hlo_module'), stat('step_num')];
    const eventMetadata: Record<string, XEventMetadata> = {};
    const metaId = new Map<string, bigint>();
    const metadataOf = (e: Ev): bigint => {
      let id = metaId.get(e.name);
      if (id === undefined) {
        id = BigInt(metaId.size + 1);
        metaId.set(e.name, id);
        eventMetadata[String(id)] = create(XEventMetadataSchema, { id, name: e.name });
      }
      return id;
    };
    // As XLA writes them: an op's hlo_op and hlo_module on each of its events, as references to stat metadata named by the value.
    const statsOf = (e: Ev): XStat[] => {
      if (e.step !== undefined) return [create(XStatSchema, { metadataId: stepNum, value: { case: 'int64Value', value: BigInt(e.step) } })];
      if (e.op === undefined) return [];
      return [create(XStatSchema, { metadataId: hloOp, value: { case: 'refValue', value: stat(e.op) } }), create(XStatSchema, { metadataId: hloModule, value: { case: 'refValue', value: stat(e.module ?? '') } })];
    };
    const lines = trackIds.map((i) => create(XLineSchema, {
      id: BigInt(all[i]!.tid), name: all[i]!.thread,
      events: lineEvents[i]!.map((e) => create(XEventSchema, {
        metadataId: metadataOf(e), data: { case: 'offsetPs', value: BigInt(Math.round(e.ts * 1e6)) }, durationPs: BigInt(Math.round(e.dur * 1e6)),
        stats: statsOf(e),
      })),
    }));
    planes.push(create(XPlaneSchema, { id: BigInt(pid), name: all[trackIds[0]!]!.process, lines, eventMetadata, statMetadata }));
  }
  return create(XSpaceSchema, { planes, hostnames: ['bench'] });
}
