/** A typed array constructor a column can grow in. */
type Typed = Int32Array | Float64Array;

/**
 * A column of numbers appended one at a time, in a typed array sized ahead and doubled when full:
 * a reader of 10^5 instructions fills a dozen of them without a JavaScript array each, and without
 * copying them again at the end (`done`).
 */
export class Column<T extends Typed> {
  private data: T;
  length = 0;

  constructor(
    private readonly make: (n: number) => T, capacity: number,
  ) {
    this.data = make(Math.max(16, capacity));
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const more = this.make(this.data.length * 2);
      more.set(this.data);
      this.data = more;
    }
    this.data[this.length++] = v;
  }

  at(i: number): number {
    return this.data[i] as number;
  }

  /** The values appended, in an array of their own length (the storage itself when it is exactly full). */
  done(): T {
    return this.length === this.data.length ? this.data : (this.data.slice(0, this.length) as T);
  }
}

export const int32s = (capacity: number): Column<Int32Array> => new Column((n) => new Int32Array(n), capacity);
export const float64s = (capacity: number): Column<Float64Array> => new Column((n) => new Float64Array(n), capacity);
