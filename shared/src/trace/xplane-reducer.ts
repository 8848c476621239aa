import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { TraceBuilder } from './builder';
import { TraceFormatError, TraceTooLarge } from './errors';
import { FieldWindow, MAX_FIELD_HEADER, type FieldSpan } from './field-window';
import { XLineSchema, XPlaneSchema, type XStat } from './gen/xplane_pb';
import { MemorySpool, type ByteSpool } from './spool';
import { trackKind } from './track-kind';
import { DEFAULT_TRACE_LIMITS, TraceFormat, type ReducedTrace, type TraceLimits } from './types';

/** `XSpace.planes`; the other XSpace fields (2–4: errors, warnings, hostnames) are strings and skipped. */
const PLANES_FIELD = 1;
const LAST_FIELD = 4;
/** `XPlane.name`, `XPlane.lines`, `XLine.events`. */
const PLANE_NAME = 2;
const PLANE_LINES = 3;
const LINE_EVENTS = 4;
/** The window the spooled planes are read through, and the most bytes of fields decoded at once (a run of events, of metadata). */
const WINDOW_BYTES = 1024 * 1024;
const BATCH_BYTES = 256 * 1024;
/** Line timestamps past this (ns) are since the epoch; they are taken relative to the first such line. */
const EPOCH_NS = 1n << 50n;

interface Tags { op?: string; module?: string; step?: string }
/** What the reduction reads of an event metadata (not its `metadata` bytes, which may be large). */
interface EventMeta { readonly name: string; readonly displayName: string; readonly stats: readonly XStat[] }
/** A plane's metadata, read before its lines. */
interface PlaneMeta { readonly index: number; readonly name: string; readonly events: Map<bigint, EventMeta>; readonly tags: Map<bigint, Tags>; readonly statNames: Map<bigint, string> }

/**
 * Reduces XProf's XSpace (`*.xplane.pb`) read in chunks (`write`, then `end`), never decoding
 * more than a bounded run of fields at once. The chunks go to a spool (a temporary file in the
 * server's worker; memory by default). The XSpace's fields are framed as they arrive with the
 * protobuf library's wire reader; once a plane's bytes are all in, it is read back from the spool
 * by offsets, twice: first its metadata (`event_metadata`, `stat_metadata`, name; serializers
 * write them after the lines, in field-number order), then its lines one by one, each line's own
 * fields first and then its events in runs of at most `BATCH_BYTES`, each run decoded with the
 * generated `XLine` schema. What it holds is the window it reads through, one line's own fields
 * and a plane's metadata (`peakHeldBytes`), whatever the size of the file, plane or line.
 *
 * Each line of a plane becomes a track (a `/device:…` plane's `Stream …` lines are streams, its
 * other lines device tracks; `/host:…` lines are host threads); an event's `hlo_op`/`hlo_module`
 * stats (its own, else its metadata's) tag it with an HLO op, and a `step_num` stat marks a step.
 * Aggregated events (`num_occurrences`) are counted as ignored.
 */
export class XSpaceReducer {
  private readonly builder: TraceBuilder;
  private readonly window: FieldWindow;
  private readonly span: FieldSpan = { field: 0, wire: WireType.Varint, start: 0, body: 0, end: 0 };
  private readonly head = new Uint8Array(MAX_FIELD_HEADER);
  private spooled = 0;
  /** Where the next top-level field starts, and the one being read when its bytes are not all in. */
  private pos = 0;
  private pending: { readonly field: number; readonly body: number; readonly end: number } | undefined;
  private planes = 0;
  private origin: bigint | undefined;
  private lineHeadPeak = 0;

  constructor(
    private readonly limits: TraceLimits = DEFAULT_TRACE_LIMITS,
    private readonly spool: ByteSpool = new MemorySpool(),
  ) {
    this.builder = new TraceBuilder(TraceFormat.xplane, limits);
    this.window = new FieldWindow(spool, WINDOW_BYTES, () => this.spooled);
  }

  /** The most bytes of the trace the reducer held at once, besides the spool and the reduced events. */
  get peakHeldBytes(): number {
    return this.window.peakHeld + this.lineHeadPeak;
  }

  write(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.spool.append(chunk);
    this.spooled += chunk.length;
    this.advance();
  }

  /** The reduced trace; throws `TraceFormatError` when the bytes ended inside a field, or held no plane. */
  end(): ReducedTrace {
    this.advance();
    if (this.pending || this.pos < this.spooled) throw new TraceFormatError(`the XSpace is cut short: it ends inside a field after ${this.planes} planes (at byte ${this.spooled})`);
    if (this.planes === 0) throw new TraceFormatError('not an XSpace (xplane.pb): it holds no plane');
    return this.builder.finish();
  }

  /** Reads the top-level fields whose bytes are all in: a plane is reduced, the rest skipped. */
  private advance(): void {
    for (;;) {
      if (!this.pending && !this.header()) return;
      const p = this.pending!;
      if (p.end > this.spooled) return;
      this.pending = undefined;
      this.pos = p.end;
      if (p.field === PLANES_FIELD) this.plane(this.planes++, p.body, p.end);
      this.spool.release(this.pos);
    }
  }

  /** Reads the header of the top-level field at `pos`; false when too few bytes are in to tell. */
  private header(): boolean {
    const available = Math.min(MAX_FIELD_HEADER, this.spooled - this.pos);
    if (available === 0) return false;
    const head = this.head.subarray(0, available);
    this.spool.read(this.pos, head);
    const r = new BinaryReader(head);
    let field: number;
    let wire: WireType;
    let length: number;
    try {
      [field, wire] = r.tag();
      if (field < 1 || field > LAST_FIELD || wire !== WireType.LengthDelimited) {
        throw new TraceFormatError(`not an XSpace (xplane.pb): field ${field} of wire type ${wire} at byte ${this.pos}`);
      }
      length = r.uint32();
    } catch (err) {
      if (err instanceof TraceFormatError) throw err;
      // Too few bytes to tell yet; at the end, `end` finds the trace cut short.
      if (available < MAX_FIELD_HEADER) return false;
      throw new TraceFormatError(`not an XSpace (xplane.pb): no field header at byte ${this.pos}`);
    }
    if (field === PLANES_FIELD && length > this.limits.maxPlaneBytes) {
      throw new TraceTooLarge(`plane ${this.planes} of the XSpace has ${length} bytes, more than the ${this.limits.maxPlaneBytes} a plane may have`);
    }
    if (length > this.limits.maxEventBytes && field !== PLANES_FIELD) {
      throw new TraceTooLarge(`a string field of the XSpace has ${length} bytes, more than ${this.limits.maxEventBytes}`);
    }
    const body = this.pos + r.pos;
    this.pending = { field, body, end: body + length };
    return true;
  }

  /** Reduces the plane spooled at [from, to): its metadata, then its lines. */
  private plane(index: number, from: number, to: number): void {
    try {
      const meta = this.planeMeta(index, from, to);
      for (let k = 0; k < meta.lines.length; k += 2) this.line(meta, k / 2, meta.lines[k]!, meta.lines[k + 1]!);
    } catch (err) {
      if (err instanceof TraceTooLarge) throw err;
      throw new TraceFormatError(`plane ${index} of the XSpace is not a valid XPlane: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The first pass over a plane: every field but its lines, decoded in runs; where its lines are (body and end of each). */
  private planeMeta(index: number, from: number, to: number): PlaneMeta & { readonly lines: readonly number[] } {
    const w = this.window;
    const f = this.span;
    const lines: number[] = [];
    const events = new Map<bigint, EventMeta>();
    const statNames = new Map<bigint, string>();
    let name = '';
    let run = -1;
    let runHasName = false;
    const decodeRun = (end: number): void => {
      if (run < 0) return;
      const p = fromBinary(XPlaneSchema, w.bytes(run, end));
      if (runHasName) name = p.name;
      for (const [id, m] of Object.entries(p.eventMetadata)) events.set(BigInt(id), { name: m.name, displayName: m.displayName, stats: m.stats });
      for (const [id, m] of Object.entries(p.statMetadata)) statNames.set(BigInt(id), m.name);
      run = -1;
      runHasName = false;
    };
    for (let pos = from; pos < to; pos = f.end) {
      w.field(pos, to, f);
      if (f.field === PLANE_LINES && f.wire === WireType.LengthDelimited) {
        decodeRun(pos);
        lines.push(f.body, f.end);
        continue;
      }
      this.checkField(f, `plane ${index}`);
      if (run >= 0 && f.end - run > BATCH_BYTES) decodeRun(pos);
      if (run < 0) run = pos;
      if (f.field === PLANE_NAME) runHasName = true;
    }
    decodeRun(to);
    const tags = new Map<bigint, Tags>();
    const meta = { index, name, events, tags, statNames, lines };
    for (const [id, m] of events) tags.set(id, tagsOf(meta, m.stats));
    return meta;
  }

  /** Reduces the line spooled at [from, to): its own fields first (id, names, start), then its events in runs. */
  private line(plane: PlaneMeta, order: number, from: number, to: number): void {
    const w = this.window;
    const f = this.span;
    const own: Uint8Array[] = [];
    let ownBytes = 0;
    let events = 0;
    for (let pos = from; pos < to; pos = f.end) {
      w.field(pos, to, f);
      if (f.field === LINE_EVENTS && f.wire === WireType.LengthDelimited) {
        events += 1;
        continue;
      }
      ownBytes += f.end - f.start;
      if (ownBytes > this.limits.maxEventBytes) throw new TraceTooLarge(`line ${order} of plane ${plane.index} has more than ${this.limits.maxEventBytes} bytes besides its events`);
      own.push(w.bytes(f.start, f.end).slice());
    }
    this.lineHeadPeak = Math.max(this.lineHeadPeak, ownBytes);
    if (events === 0) return;
    const line = fromBinary(XLineSchema, concat(own, ownBytes));
    const name = line.displayName || line.name || `line ${line.id}`;
    const track = this.builder.trackOf(`${plane.index}\u0000${line.id}`, plane.name, name);
    this.builder.describeTrack(track, { kind: trackKind(plane.name, name), sortIndex: order });
    const lineUs = this.lineStartUs(line.timestampNs);
    let run = -1;
    for (let pos = from; pos < to; pos = f.end) {
      w.field(pos, to, f);
      const isEvent = f.field === LINE_EVENTS && f.wire === WireType.LengthDelimited;
      if (isEvent) this.checkField(f, `line ${order} of plane ${plane.index}`);
      if (run >= 0 && (!isEvent || f.end - run > BATCH_BYTES)) {
        this.events(plane, track, lineUs, w.bytes(run, pos));
        run = -1;
      }
      if (isEvent && run < 0) run = pos;
    }
    if (run >= 0) this.events(plane, track, lineUs, w.bytes(run, to));
  }

  /** Reduces a run of a line's event fields. */
  private events(plane: PlaneMeta, track: number, lineUs: number, bytes: Uint8Array): void {
    for (const e of fromBinary(XLineSchema, bytes).events) {
      if (e.data.case === 'numOccurrences') {
        this.builder.ignored += 1;
        continue;
      }
      const md = plane.events.get(e.metadataId);
      const own = e.stats.length > 0 ? tagsOf(plane, e.stats) : {};
      const shared = plane.tags.get(e.metadataId) ?? {};
      const op = own.op ?? shared.op;
      const mod = own.module ?? shared.module;
      const step = own.step ?? shared.step;
      const offsetPs = e.data.case === 'offsetPs' ? e.data.value : 0n;
      this.builder.event(
        track, lineUs + Number(offsetPs) / 1e6, Number(e.durationPs) / 1e6, md?.displayName || md?.name || '',
        op, mod, step !== undefined && /^\d+$/.test(step) ? Number(step) : undefined,
      );
    }
  }

  /** Throws `TraceTooLarge` for a field decoded whole (an event, a metadata entry, a name) past `maxEventBytes`. */
  private checkField(f: FieldSpan, where: string): void {
    if (f.end - f.start > this.limits.maxEventBytes) throw new TraceTooLarge(`a field of ${where} of the XSpace has ${f.end - f.start} bytes, more than ${this.limits.maxEventBytes}`);
  }

  /** A line's start in µs: as written when small, else relative to the first epoch-based line (µs of the epoch lose precision as doubles). */
  private lineStartUs(ns: bigint): number {
    if (ns < EPOCH_NS) return Number(ns) / 1000;
    this.origin ??= ns;
    return Number(ns - this.origin) / 1000;
  }
}

/** A stat's value as text: a string, a reference to a stat metadata's name, or a number. */
function statString(plane: PlaneMeta, s: XStat): string | undefined {
  const v = s.value;
  switch (v.case) {
    case 'strValue': return v.value;
    case 'refValue': return plane.statNames.get(v.value);
    case 'int64Value': case 'uint64Value': case 'doubleValue': return String(v.value);
    default: return undefined;
  }
}

/** The HLO op, module and step that stats name. */
function tagsOf(plane: PlaneMeta, stats: readonly XStat[]): Tags {
  const t: Tags = {};
  for (const s of stats) {
    const name = plane.statNames.get(s.metadataId);
    if (name === 'hlo_op') t.op = statString(plane, s);
    else if (name === 'hlo_module') t.module = statString(plane, s);
    else if (name === 'step_num') t.step = statString(plane, s);
  }
  return t;
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
