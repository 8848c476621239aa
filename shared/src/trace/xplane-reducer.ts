import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { TraceBuilder } from './builder';
import { TraceFormatError, TraceTooLarge } from './errors';
import { XPlaneSchema, type XPlane, type XStat } from './gen/xplane_pb';
import { trackKind } from './track-kind';
import { DEFAULT_TRACE_LIMITS, TraceFormat, type ReducedTrace, type TraceLimits } from './types';

/** `XSpace.planes`; the other XSpace fields (2–4: errors, warnings, hostnames) are strings and skipped. */
const PLANES_FIELD = 1;
const LAST_FIELD = 4;
/** A field header (tag and length varints) is at most this long. */
const MAX_HEADER = 15;
/** Line timestamps past this (ns) are since the epoch; they are taken relative to the first such line. */
const EPOCH_NS = 1n << 50n;

/**
 * Reduces XProf's XSpace (`*.xplane.pb`) read in chunks (`write`, then `end`), one plane at a time:
 * the top-level fields are split with the protobuf library's wire reader and each plane is decoded
 * with the generated `XPlane` schema as soon as its bytes are in, so the whole file is never held
 * (one plane is, up to `maxPlaneBytes`). Each line of a plane becomes a track (a `/device:…` plane's
 * `Stream …` lines are streams, its other lines device tracks; `/host:…` lines are host threads); an
 * event's `hlo_op`/`hlo_module` stats (its own, else its metadata's) tag it with an HLO op, and a
 * `step_num` stat marks a step. Aggregated events (`num_occurrences`) are counted as ignored.
 */
export class XSpaceReducer {
  private readonly builder: TraceBuilder;
  private head = new Uint8Array(0);
  private body: Uint8Array | undefined;
  private bodyField = 0;
  private filled = 0;
  private offset = 0;
  private planes = 0;
  private origin: bigint | undefined;

  constructor(private readonly limits: TraceLimits = DEFAULT_TRACE_LIMITS) {
    this.builder = new TraceBuilder(TraceFormat.xplane, limits);
  }

  write(chunk: Uint8Array): void {
    let off = 0;
    while (off < chunk.length) {
      if (this.body) {
        const take = Math.min(this.body.length - this.filled, chunk.length - off);
        this.body.set(chunk.subarray(off, off + take), this.filled);
        this.filled += take;
        off += take;
        if (this.filled === this.body.length) this.field();
        continue;
      }
      const take = Math.min(MAX_HEADER - this.head.length, chunk.length - off);
      const head = new Uint8Array(this.head.length + take);
      head.set(this.head);
      head.set(chunk.subarray(off, off + take), this.head.length);
      off += take;
      const rest = this.header(head);
      if (rest === undefined) {
        this.head = head;
        continue;
      }
      this.head = new Uint8Array(0);
      // Bytes read past the header belong to the field's body (or the next header).
      if (rest.length > 0) this.write(rest);
    }
  }

  /** The reduced trace; throws `TraceFormatError` when the bytes ended inside a field, or held no plane. */
  end(): ReducedTrace {
    if (this.body || this.head.length > 0) throw new TraceFormatError(`the XSpace is cut short: it ends inside a field after ${this.planes} planes (at byte ${this.offset + this.head.length + this.filled})`);
    if (this.planes === 0) throw new TraceFormatError('not an XSpace (xplane.pb): it holds no plane');
    return this.builder.finish();
  }

  /** Parses a field header from `head`; returns the bytes after it, or undefined when `head` is too short to tell. */
  private header(head: Uint8Array): Uint8Array | undefined {
    const r = new BinaryReader(head);
    let field: number;
    let wire: WireType;
    let length: number;
    try {
      [field, wire] = r.tag();
      if (field < 1 || field > LAST_FIELD || wire !== WireType.LengthDelimited) {
        throw new TraceFormatError(`not an XSpace (xplane.pb): field ${field} of wire type ${wire} at byte ${this.offset}`);
      }
      length = r.uint32();
    } catch (err) {
      if (err instanceof TraceFormatError) throw err;
      if (head.length < MAX_HEADER) return undefined;
      throw new TraceFormatError(`not an XSpace (xplane.pb): no field header at byte ${this.offset}`);
    }
    if (field === PLANES_FIELD && length > this.limits.maxPlaneBytes) {
      throw new TraceTooLarge(`plane ${this.planes} of the XSpace has ${length} bytes, more than the ${this.limits.maxPlaneBytes} a plane may have`);
    }
    if (length > this.limits.maxEventBytes && field !== PLANES_FIELD) {
      throw new TraceTooLarge(`a string field of the XSpace has ${length} bytes, more than ${this.limits.maxEventBytes}`);
    }
    this.offset += r.pos;
    this.bodyField = field;
    this.body = new Uint8Array(length);
    this.filled = 0;
    const rest = head.subarray(r.pos);
    if (length === 0) this.field();
    return rest;
  }

  /** A whole field has been read: a plane is reduced, the rest dropped. */
  private field(): void {
    const body = this.body!;
    this.body = undefined;
    this.offset += body.length;
    if (this.bodyField !== PLANES_FIELD) return;
    let plane: XPlane;
    try {
      plane = fromBinary(XPlaneSchema, body);
    } catch (err) {
      throw new TraceFormatError(`plane ${this.planes} of the XSpace is not a valid XPlane: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.plane(plane, this.planes++);
  }

  private plane(plane: XPlane, index: number): void {
    const statNames = new Map<bigint, string>();
    for (const [id, m] of Object.entries(plane.statMetadata)) statNames.set(BigInt(id), m.name);
    const statString = (s: XStat): string | undefined => {
      const v = s.value;
      switch (v.case) {
        case 'strValue': return v.value;
        case 'refValue': return statNames.get(v.value);
        case 'int64Value': case 'uint64Value': case 'doubleValue': return String(v.value);
        default: return undefined;
      }
    };
    const tagged = new Map<bigint, { op?: string; module?: string; step?: string }>();
    const tagsOf = (stats: readonly XStat[]): { op?: string; module?: string; step?: string } => {
      const t: { op?: string; module?: string; step?: string } = {};
      for (const s of stats) {
        const name = statNames.get(s.metadataId);
        if (name === 'hlo_op') t.op = statString(s);
        else if (name === 'hlo_module') t.module = statString(s);
        else if (name === 'step_num') t.step = statString(s);
      }
      return t;
    };
    for (const [id, m] of Object.entries(plane.eventMetadata)) tagged.set(BigInt(id), tagsOf(m.stats));
    for (const [order, line] of plane.lines.entries()) {
      if (line.events.length === 0) continue;
      const name = line.displayName || line.name || `line ${line.id}`;
      const track = this.builder.trackOf(`${index}\u0000${line.id}`, plane.name, name);
      this.builder.describeTrack(track, { kind: trackKind(plane.name, name), sortIndex: order });
      const lineUs = this.lineStartUs(line.timestampNs);
      for (const e of line.events) {
        if (e.data.case === 'numOccurrences') {
          this.builder.ignored += 1;
          continue;
        }
        const md = plane.eventMetadata[String(e.metadataId)];
        const own = e.stats.length > 0 ? tagsOf(e.stats) : {};
        const shared = tagged.get(e.metadataId) ?? {};
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
  }

  /** A line's start in µs: as written when small, else relative to the first epoch-based line (µs of the epoch lose precision as doubles). */
  private lineStartUs(ns: bigint): number {
    if (ns < EPOCH_NS) return Number(ns) / 1000;
    this.origin ??= ns;
    return Number(ns - this.origin) / 1000;
  }
}
