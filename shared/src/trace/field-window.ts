import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { TraceFormatError } from './errors';
import type { ByteSpool } from './spool';

/** A field header is at most this long: a tag (up to 5 bytes) and a length or varint value (up to 10). */
export const MAX_FIELD_HEADER = 15;

/** Where one protobuf field of a spooled message is: its number and wire type, its first byte, its body's first byte, its end. */
export interface FieldSpan {
  field: number;
  wire: WireType;
  start: number;
  body: number;
  end: number;
}

/**
 * Reads protobuf fields of a spooled message by their offsets through one window of at most
 * `size` bytes of the spool, read again only when a field falls outside it: the framing (tags,
 * lengths) with the protobuf library's `BinaryReader`, the bytes of a run of fields as a view
 * for `fromBinary`. What it holds is the window, and a field longer than the window while it is
 * read (`peakHeld` says the most at once).
 */
export class FieldWindow {
  private buf = new Uint8Array(0);
  /** The spool's bytes [from, to) are `buf`'s first bytes. */
  private from = 0;
  private to = 0;
  private reader = new BinaryReader(this.buf);
  /** The most bytes held at once. */
  peakHeld = 0;

  /** `spooled` says how many bytes the spool holds now. */
  constructor(
    private readonly spool: ByteSpool,
    private readonly size: number,
    private readonly spooled: () => number,
  ) {}

  /**
   * Reads into `out` the header of the field that starts at `pos` inside a message that ends at
   * `end`. Throws `TraceFormatError` when the field runs past `end`, or is a group.
   */
  field(pos: number, end: number, out: FieldSpan): FieldSpan {
    this.load(pos, Math.min(pos + MAX_FIELD_HEADER, end));
    const r = this.reader;
    r.pos = pos - this.from;
    let field: number;
    let wire: WireType;
    let body: number;
    let last: number;
    try {
      [field, wire] = r.tag();
      switch (wire) {
        case WireType.LengthDelimited: {
          const length = r.uint32();
          body = this.from + r.pos;
          last = body + length;
          break;
        }
        case WireType.Varint: case WireType.Bit64: case WireType.Bit32:
          r.skip(wire);
          body = pos;
          last = this.from + r.pos;
          break;
        default:
          throw new TraceFormatError(`field ${field} at byte ${pos} is a group (wire type ${wire}), which no field of it is`);
      }
    } catch (err) {
      if (err instanceof TraceFormatError) throw err;
      throw new TraceFormatError(`no field header at byte ${pos}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (body > end || last > end) throw new TraceFormatError(`field ${field} at byte ${pos} runs past the end of its message (byte ${end})`);
    out.field = field;
    out.wire = wire;
    out.start = pos;
    out.body = body;
    out.end = last;
    return out;
  }

  /** The spool's bytes [start, end), as a view that holds until the next call. */
  bytes(start: number, end: number): Uint8Array {
    if (end - start > this.size) {
      const own = new Uint8Array(end - start);
      this.peakHeld = Math.max(this.peakHeld, this.buf.length + own.length);
      this.spool.read(start, own);
      return own;
    }
    this.load(start, end);
    return this.buf.subarray(start - this.from, end - this.from);
  }

  /** Makes the window hold [start, end) (at most `size` bytes), reading from `start` on when it does not. */
  private load(start: number, end: number): void {
    if (start >= this.from && end <= this.to) return;
    if (this.buf.length === 0) {
      this.buf = new Uint8Array(this.size);
      this.peakHeld = Math.max(this.peakHeld, this.size);
    }
    const to = Math.min(start + this.size, this.spooled());
    if (to < end) throw new RangeError(`bytes ${start}..${end} are not all spooled yet`);
    this.spool.read(start, this.buf.subarray(0, to - start));
    this.from = start;
    this.to = to;
    this.reader = new BinaryReader(this.buf.subarray(0, to - start));
  }
}
