import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../analyze';
import { checkDiagnostics } from '../parser-contract';

/**
 * Property: the buffer-assignment and memory-report indexers never throw and keep diagnostic spans
 * inside the text, on XLA's real files cut anywhere or with characters that matter overwritten.
 */
const root = new URL('../../../../test/fixtures/xla-dump/', import.meta.url);
const files = ['mlp', 'attention'].flatMap((folder) =>
  readdirSync(new URL(`${folder}/`, root))
    .filter((n) => /-(?:buffer-assignment|buffer-assignment-values|live-range|memory-usage-report)\.txt$/.test(n))
    .map((n) => readFileSync(new URL(`${folder}/${n}`, root), 'utf8')),
);
const NASTY = ['<', '>', '(', ')', '{', '}', '|', ':', ',', ';', '=', '\n', ' ', '9', '-', '×', '\u00e9', '\ud83d', '%'];

describe('XLA plan indexers on damaged files', () => {
  it(`never throw on truncations and byte flips of ${files.length} real files`, () => {
    expect(files).toHaveLength(8);
    fc.assert(
      fc.property(
        fc.nat({ max: files.length - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), with: fc.constantFrom(...NASTY) }), { maxLength: 6 }),
        fc.constantFrom('buffer-assignment' as const, 'memory-report' as const),
        (f, cut, flips, kind) => {
          let text = (files[f] ?? '').slice(0, Math.floor((files[f] ?? '').length * cut));
          for (const x of flips) {
            const at = Math.floor(text.length * x.at);
            text = text.slice(0, at) + x.with + text.slice(at + 1);
          }
          const a = analyze(text, kind);
          expect(checkDiagnostics(text, a.diagnostics)).toEqual([]);
          expect(a.index.kind).toBe(kind);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('gives hostile input a clear error and no allocations', () => {
    for (const text of ['', '\u0000\u0000', 'allocation -1: size 5:', `allocation 0: size ${'9'.repeat(400)}:`, '<img src=x onerror=alert(1)>', 'value: <1 x @0> (size=1,offset=0): f32[]'.repeat(1000)]) {
      const a = analyze(text, 'buffer-assignment');
      expect(a.index.xla?.bufferAssignment?.allocations).toEqual([]);
      expect(a.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      expect(checkDiagnostics(text, a.diagnostics)).toEqual([]);
    }
  });
});
