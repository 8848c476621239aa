const EMPTY_SLOTS = 64;
/** At most this many keys share one hash; more are not stored, so a lookup compares at most this many. */
const SAME_HASH_LIMIT = 8;
/** Spans up to this long are hashed whole; longer ones by samples. */
const WHOLE = 32;

/**
 * Values keyed by spans of one text, so that repeated text (a type, an opcode, metadata) is found
 * without building a string: the span is hashed from its char codes, and sliced (V8 shares the text's
 * characters) only to be compared with a key of the same hash.
 */
export class SpanTable<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  private hashes = new Int32Array(EMPTY_SLOTS / 2);
  /** Open addressing: entry index + 1, or 0 for an empty slot. */
  private slots = new Int32Array(EMPTY_SLOTS);

  constructor(private readonly text: string) {}

  /**
   * The value stored for the same characters as `text[from, to)`, if any. `hash` is their
   * `spanHash`, for a caller that computed it while reading them.
   */
  get(from: number, to: number, hash = spanHash(this.text, from, to)): V | undefined {
    const mask = this.slots.length - 1;
    let span: string | undefined;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const e = (this.slots[i] as number) - 1;
      if (e < 0) return undefined;
      if (this.hashes[e] !== hash) continue;
      // A slice shares the text's characters and compares natively, far faster than `startsWith`.
      span ??= this.text.slice(from, to);
      if (this.keys[e] === span) return this.values[e];
    }
  }

  /** Stores `value` for the characters of `text[from, to)`, unless too many keys share their hash. */
  set(from: number, to: number, value: V): void {
    this.store(this.text.slice(from, to), spanHash(this.text, from, to), value);
  }

  /** Stores `value` for `key`, characters already sliced from the text (a name just read). */
  setKey(key: string, value: V): void {
    this.store(key, spanHash(key, 0, key.length), value);
  }

  private store(key: string, hash: number, value: V): void {
    if (2 * (this.keys.length + 1) > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    let same = 0;
    let i = hash & mask;
    for (; ; i = (i + 1) & mask) {
      const e = (this.slots[i] as number) - 1;
      if (e < 0) break;
      if (this.hashes[e] !== hash) continue;
      if (this.keys[e] === key) {
        this.values[e] = value;
        return;
      }
      if (++same >= SAME_HASH_LIMIT) return;
    }
    const e = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    this.hashes[e] = hash;
    this.slots[i] = e + 1;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const hashes = new Int32Array(slots.length / 2);
    hashes.set(this.hashes);
    const mask = slots.length - 1;
    for (let e = 0; e < this.keys.length; e++) {
      let i = (hashes[e] as number) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = e + 1;
    }
    this.slots = slots;
    this.hashes = hashes;
  }
}

/** The hash of no characters, to fold char codes into with `hashStep` (FNV-1a). */
export const HASH_SEED = 0x811c9dc5 | 0;

/** Folds one char code into a hash. */
export function hashStep(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

/**
 * The hash `SpanTable` keys `text[from, to)` by. A span of up to 32 characters is hashed whole:
 * `hashStep` over its char codes from `HASH_SEED`, then its length, so a reader can fold the
 * characters in as it reads them and finish with `spanHash(text, from, to, folded)`. A longer span
 * (metadata is ~100 characters) is sampled: 16 characters spread over it and its last 8, where
 * name stacks and frame ids differ.
 */
export function spanHash(text: string, from: number, to: number, folded?: number): number {
  const len = to - from;
  if (len <= WHOLE) {
    let h = folded ?? HASH_SEED;
    if (folded === undefined) for (let p = from; p < to; p++) h = hashStep(h, text.charCodeAt(p));
    return hashStep(h, len);
  }
  let h = HASH_SEED;
  for (let p = from; p < to; p += len >> 4) h = hashStep(h, text.charCodeAt(p));
  for (let p = to - 8; p < to; p++) h = hashStep(h, text.charCodeAt(p));
  return hashStep(h, len);
}
