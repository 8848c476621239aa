/** Gathers small pieces of bytes (an HTTP body's, about 64 KB each) into batches of up to `size` bytes, each in a buffer of its own. */
export class ByteBatch {
  private buf: Uint8Array;
  private used = 0;

  constructor(private readonly size: number) {
    this.buf = new Uint8Array(size);
  }

  /** Whether adding `length` bytes would pass the size while something is gathered (then `take` first). */
  wouldOverflow(length: number): boolean {
    return this.used > 0 && this.used + length > this.size;
  }

  /** Whether a piece is a batch by itself (at least the size). */
  isWhole(piece: Uint8Array): boolean {
    return piece.length >= this.size;
  }

  /** Adds a piece smaller than the room left. */
  add(piece: Uint8Array): void {
    this.buf.set(piece, this.used);
    this.used += piece.length;
  }

  /** What has been gathered, if anything; the next batch starts in a new buffer. */
  take(): Uint8Array | undefined {
    if (this.used === 0) return undefined;
    const out = this.buf.subarray(0, this.used);
    this.buf = new Uint8Array(this.size);
    this.used = 0;
    return out;
  }
}
