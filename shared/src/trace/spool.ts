/**
 * Where a streaming reader keeps bytes it must read again, out of order: appended once, in order,
 * then read back by offset. The server's reducer worker spools to a temporary file; `MemorySpool`
 * keeps them in memory.
 */
export interface ByteSpool {
  /** Adds bytes at the end (copied: the caller may reuse them). */
  append(bytes: Uint8Array): void;
  /** Fills `into` with the bytes from `offset` on (appended already). */
  read(offset: number, into: Uint8Array): void;
  /** The bytes before `offset` will not be read again. */
  release(offset: number): void;
}

/** Small appends are gathered into blocks of this size, so a spool written a byte at a time is still read by a few blocks. */
const BLOCK_BYTES = 64 * 1024;

/** A spool in memory: it holds what was appended and not released (for an XSpace, about the plane being read). */
export class MemorySpool implements ByteSpool {
  /** Blocks of bytes and the offset of each; the last one may have room left. */
  private readonly blocks: Uint8Array[] = [];
  private readonly starts: number[] = [];
  private end = 0;
  private room = 0;
  /** Bytes held. */
  held = 0;

  append(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.room === 0) {
        const size = Math.max(BLOCK_BYTES, bytes.length - from);
        this.blocks.push(new Uint8Array(size));
        this.starts.push(this.end);
        this.room = size;
        this.held += size;
      }
      const block = this.blocks[this.blocks.length - 1]!;
      const take = Math.min(this.room, bytes.length - from);
      block.set(bytes.subarray(from, from + take), block.length - this.room);
      this.room -= take;
      this.end += take;
      from += take;
    }
  }

  read(offset: number, into: Uint8Array): void {
    if (offset < (this.starts[0] ?? 0) || offset + into.length > this.end) throw new RangeError(`the spool holds no bytes ${offset}..${offset + into.length}`);
    // The last block that starts at or before `offset`.
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    let filled = 0;
    for (let b = lo; filled < into.length; b++) {
      const block = this.blocks[b]!;
      const at = offset + filled - this.starts[b]!;
      const take = Math.min(block.length - at, into.length - filled);
      into.set(block.subarray(at, at + take), filled);
      filled += take;
    }
  }

  release(offset: number): void {
    // The last block is kept while it has room.
    while (this.blocks.length > 1 && this.starts[1]! <= offset) {
      this.held -= this.blocks.shift()!.length;
      this.starts.shift();
    }
  }
}
