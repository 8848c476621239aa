import { TraceBuilder } from './builder';
import { TraceFormatError } from './errors';
import { JsonEventSplitter } from './json-splitter';
import { trackKind } from './track-kind';
import { DEFAULT_TRACE_LIMITS, TraceFormat, type ReducedTrace, type TraceLimits } from './types';

type Json = Record<string, unknown>;

interface Open { readonly ts: number; readonly name: string; readonly args: Json | undefined }

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

function bad(index: number, field: string, want: string, v: unknown): never {
  throw new TraceFormatError(`traceEvents[${index}].${field} must be ${want}, not ${typeOf(v)}`);
}

/** Throws unless a pid or tid is a number, a string or absent. */
function checkId(v: unknown, index: number, field: string): void {
  if (v !== undefined && typeof v !== 'number' && typeof v !== 'string') bad(index, field, 'a number or a string', v);
}

/** A pid or tid as a key: its text (0 when absent). */
const id = (v: unknown): string => (v === undefined ? '0' : typeof v === 'string' ? v : String(v));

/** A time in µs: a finite number. */
function time(v: unknown, index: number, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) bad(index, field, 'a number', v);
  return v as number;
}

/**
 * Reduces a Chrome/Perfetto JSON trace read in chunks (`write`, then `end`): complete events (`X`),
 * begin/end pairs (`B`/`E`, per thread), instants (`i`, `I`, kept with no duration), process and
 * thread names and thread sort indexes (`M`); counters, flows, async and sample events are counted as
 * ignored. An event's `args.hlo_op`/`args.hlo_module` tag it with an HLO op; an `X` event with
 * `args.step_num` marks a step. Values of the wrong type (a `ts` given as a string, `args` that is
 * not an object) throw `TraceFormatError` naming the event.
 */
export class ChromeTraceReducer {
  private readonly builder: TraceBuilder;
  private readonly splitter: JsonEventSplitter;
  private readonly processNames = new Map<string, string>();
  private readonly threadNames = new Map<string, string>();
  private readonly threadSort = new Map<string, number>();
  private readonly trackKeys = new Map<number, { pid: string; tid: string }>();
  private readonly open = new Map<number, Open[]>();
  /** Track ids by pid then tid as the events give them (numbers mostly), so most events build no key. */
  private readonly trackCache = new Map<unknown, Map<unknown, number>>();

  constructor(limits: TraceLimits = DEFAULT_TRACE_LIMITS) {
    this.builder = new TraceBuilder(TraceFormat.chromeJson, limits);
    this.splitter = new JsonEventSplitter((value, index) => this.event(value, index), limits);
  }

  write(chunk: string): void {
    this.splitter.write(chunk);
  }

  /** The reduced trace; throws `TraceFormatError` when the text ended before the trace did. */
  end(): ReducedTrace {
    this.splitter.end();
    for (const stack of this.open.values()) this.builder.unpaired += stack.length;
    for (const [id, { pid, tid }] of this.trackKeys) {
      const process = this.processNames.get(pid) ?? `pid ${pid}`;
      const name = this.threadNames.get(`${pid}\u0000${tid}`) ?? `tid ${tid}`;
      const sortIndex = this.threadSort.get(`${pid}\u0000${tid}`);
      this.builder.describeTrack(id, { process, name, kind: trackKind(process, name), ...(sortIndex !== undefined ? { sortIndex } : {}) });
    }
    return this.builder.finish();
  }

  private event(value: unknown, index: number): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TraceFormatError(`traceEvents[${index}] must be an object, not ${typeOf(value)}`);
    const e = value as Json;
    const ph = e.ph;
    if (ph === undefined) {
      this.builder.ignored += 1;
      return;
    }
    if (typeof ph !== 'string') bad(index, 'ph', 'a string', ph);
    checkId(e.pid, index, 'pid');
    checkId(e.tid, index, 'tid');
    const name = e.name === undefined ? '' : typeof e.name === 'string' ? e.name : bad(index, 'name', 'a string', e.name);
    const a = e.args;
    const args = a === undefined ? undefined : typeof a === 'object' && a !== null && !Array.isArray(a) ? (a as Json) : bad(index, 'args', 'an object', a);
    switch (ph) {
      case 'M':
        this.metadata(name, id(e.pid), id(e.tid), args);
        return;
      case 'X': {
        const dur = e.dur === undefined ? 0 : time(e.dur, index, 'dur');
        if (dur < 0) bad(index, 'dur', 'a number not below 0', dur);
        this.add(this.trackOf(e.pid, e.tid), time(e.ts, index, 'ts'), dur, name, args);
        return;
      }
      case 'i': case 'I':
        this.add(this.trackOf(e.pid, e.tid), time(e.ts, index, 'ts'), 0, name, args);
        return;
      case 'B': {
        const track = this.trackOf(e.pid, e.tid);
        const stack = this.open.get(track) ?? [];
        stack.push({ ts: time(e.ts, index, 'ts'), name, args });
        this.open.set(track, stack);
        return;
      }
      case 'E': {
        const ts = time(e.ts, index, 'ts');
        const track = this.trackOf(e.pid, e.tid);
        const b = this.open.get(track)?.pop();
        if (!b) {
          this.builder.unpaired += 1;
          return;
        }
        // An end event's args are merged into its begin's, as trace viewers do.
        this.add(track, b.ts, Math.max(0, ts - b.ts), b.name, args ? { ...b.args, ...args } : b.args);
        return;
      }
      default:
        this.builder.ignored += 1;
    }
  }

  private metadata(name: string, pid: string, tid: string, args: Json | undefined): void {
    const v = args?.name ?? args?.sort_index;
    switch (name) {
      case 'process_name':
        if (typeof v === 'string') this.processNames.set(pid, v);
        return;
      case 'thread_name':
        if (typeof v === 'string') this.threadNames.set(`${pid}\u0000${tid}`, v);
        return;
      case 'thread_sort_index':
        if (typeof v === 'number') this.threadSort.set(`${pid}\u0000${tid}`, v);
        return;
      default:
        this.builder.ignored += 1;
    }
  }

  /** The track of an event's pid and tid (checked already). */
  private trackOf(rawPid: unknown, rawTid: unknown): number {
    let byTid = this.trackCache.get(rawPid);
    const cached = byTid?.get(rawTid);
    if (cached !== undefined) return cached;
    const pid = id(rawPid);
    const tid = id(rawTid);
    const track = this.builder.trackOf(`${pid}\u0000${tid}`, `pid ${pid}`, `tid ${tid}`);
    if (!this.trackKeys.has(track)) this.trackKeys.set(track, { pid, tid });
    if (!byTid) this.trackCache.set(rawPid, (byTid = new Map()));
    byTid.set(rawTid, track);
    return track;
  }

  private add(track: number, ts: number, dur: number, name: string, args: Json | undefined): void {
    const op = args?.hlo_op;
    const mod = args?.hlo_module;
    const step = args?.step_num;
    const stepNum = typeof step === 'number' ? step : typeof step === 'string' && /^\d+$/.test(step) ? Number(step) : undefined;
    this.builder.event(track, ts, dur, name, typeof op === 'string' ? op : undefined, typeof mod === 'string' ? mod : undefined, stepNum);
  }
}
