/** Numbers up to this are marked in an array; larger ones (not seen in real dumps) go in a set. */
const MARKED = 1 << 16;

/**
 * The parameter numbers seen in the computation being read, to report one that appears twice: one
 * array reused for every computation of a text, where a number is marked with the computation's
 * round, so a dump of 10^4 computations and 10^5 parameters allocates no set per computation.
 */
export class ParameterNumbers {
  private marks = new Int32Array(64);
  private round = 0;
  private large: Set<number> | undefined;

  /** Starts a computation: no number is seen in it yet. */
  forget(): void {
    this.round++;
    this.large = undefined;
  }

  /** Notes `n` (≥ 0); true when it was already noted since `forget`. */
  note(n: number): boolean {
    if (n >= MARKED) {
      this.large ??= new Set();
      if (this.large.has(n)) return true;
      this.large.add(n);
      return false;
    }
    if (n >= this.marks.length) {
      const more = new Int32Array(Math.max(n + 1, 2 * this.marks.length));
      more.set(this.marks);
      this.marks = more;
    }
    if (this.marks[n] === this.round) return true;
    this.marks[n] = this.round;
    return false;
  }
}
