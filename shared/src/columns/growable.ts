/** Past this many values a column grows by a quarter, not by doubling: at 5 million events, doubling would leave a column a third empty. */
const DOUBLE_UNTIL = 1 << 20;

/**
 * A column of numbers appended one at a time in a typed array that grows by doubling, then by a
 * quarter: a reader of 10^5–10^6 records fills a dozen of them without a JavaScript array each.
 * It starts small and grows with what is appended, so a hostile text (millions of empty lines)
 * costs no more than what is in it.
 */
export class Growable<T extends Float64Array | Int32Array> {
  length = 0;
  constructor(public data: T, private readonly make: (n: number) => T) {}

  push(v: number): void {
    if (this.length === this.data.length) {
      const n = this.data.length;
      const next = this.make(n < 1024 ? 1024 : n < DOUBLE_UNTIL ? n * 2 : Math.ceil(n * 1.25));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  at(i: number): number {
    return this.data[i] as number;
  }

  /** The values appended, in a column of their own length. */
  done(): T {
    return this.length === this.data.length ? this.data : (this.data.slice(0, this.length) as T);
  }

  /** The values in the order `perm` gives (`perm[i]` is the index of the i-th), into a column of their own; this column's memory is given back. */
  takePermuted(perm: Uint32Array): T {
    const out = this.make(perm.length);
    const data = this.data;
    for (let i = 0; i < perm.length; i++) out[i] = data[perm[i]!]!;
    this.release();
    return out;
  }

  /** Gives back the column's memory; it is empty afterwards. */
  release(): void {
    this.data = this.make(0);
    this.length = 0;
  }
}

export const f64 = (n: number): Float64Array => new Float64Array(n);
export const i32 = (n: number): Int32Array => new Int32Array(n);
