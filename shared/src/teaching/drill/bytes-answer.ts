import type { DrillVerdict } from './types';

/** Relative error a byte answer may have and still be right (0.1: within 10%). */
export const BYTES_TOLERANCE = 0.1;

const UNITS: Readonly<Record<string, number>> = {
  b: 1, byte: 1, bytes: 1,
  kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12,
  kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
  k: 2 ** 10, m: 2 ** 20, g: 2 ** 30,
};

/**
 * Reads a size: `67108864`, `67,108,864`, `2,048 B (2 KiB)`, `64MiB`, `64 MiB`, `67.1 MB`, `2**26`, `6.7e7 B`.
 * `KB`/`MB` are powers of ten, `KiB`/`MiB` (and bare `K`/`M`) powers of two. `undefined` when
 * it is not a finite, non-negative size.
 */
export function readBytes(text: string): number | undefined {
  // `2,048 B (2 KiB)`, as a revealed answer reads: the part before the brackets.
  const t = text.trim().toLowerCase().replace(/_/g, '').replace(/\s*\([^()]*\)$/, '');
  const pow = /^(\d{1,2})\s*(?:\*\*|\^)\s*(\d{1,2})$/.exec(t);
  if (pow) return Number(pow[1]) ** Number(pow[2]);
  const m = /^(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e\d{1,2})?)\s*([a-z]*)$/.exec(t);
  if (!m) return undefined;
  const unit = UNITS[m[2] || 'b'];
  if (unit === undefined) return undefined;
  const n = Number((m[1] ?? '').replace(/,/g, '')) * unit;
  return Number.isFinite(n) ? n : undefined;
}

/** Whether `answer` is within `BYTES_TOLERANCE` of `expected` bytes. */
export function checkBytes(expected: number, answer: string): DrillVerdict {
  const got = readBytes(answer);
  if (got === undefined) return { correct: false, reason: 'not a size, like 67108864 or 64 MiB' };
  if (Math.abs(got - expected) <= BYTES_TOLERANCE * expected) return { correct: true };
  return { correct: false, reason: got > expected ? 'too many bytes' : 'too few bytes' };
}
