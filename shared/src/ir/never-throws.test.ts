import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_KINDS } from '../model/document';
import { analyze } from './analyze';
import { checkDiagnostics } from './parser-contract';

/**
 * Property: `analyze` never throws and keeps diagnostic spans inside the text, whatever is done to
 * a real dump — cut at any offset or with bytes overwritten by characters that matter to the
 * grammars — and whichever kind it is told the text is.
 */
const root = new URL('../../../test/fixtures/corpus/', import.meta.url);
const files = readFileSync(new URL('MANIFEST.tsv', root), 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .filter((c) => c[0] && Number(c[7]) <= 48_000)
  .map((c) => readFileSync(new URL(c[0] ?? '', root), 'utf8'));

const NASTY = ['{', '}', '(', ')', '[', ']', '"', '\\', '\n', '%', '=', ',', ':', '<', '>', '/*', '//', '#', 'x', '0', '-', ' ', '\u00e9', '\ud83d'];

const mutation = fc.record({
  file: fc.nat({ max: files.length - 1 }),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  flips: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), with: fc.constantFrom(...NASTY) }), { maxLength: 6 }),
  kind: fc.constantFrom(...DOCUMENT_KINDS),
});

function mutate(text: string, m: { cut: number; flips: { at: number; with: string }[] }): string {
  let t = text.slice(0, Math.floor(text.length * m.cut));
  for (const f of m.flips) {
    const at = Math.floor(t.length * f.at);
    t = t.slice(0, at) + f.with + t.slice(at + 1);
  }
  return t;
}

describe('analyze on damaged dumps', () => {
  it(`never throws on truncations and byte flips of ${files.length} corpus files`, () => {
    expect(files.length).toBeGreaterThan(500);
    fc.assert(
      fc.property(mutation, (m) => {
        const text = mutate(files[m.file] ?? '', m);
        const a = analyze(text, m.kind);
        expect(checkDiagnostics(text, a.diagnostics)).toEqual([]);
        expect(a.index.kind).toBe(m.kind);
      }),
      { numRuns: 1500 },
    );
  }, 60_000);

  it('never throws on every prefix of a real compiled dump', () => {
    const text = readFileSync(new URL('../../../test/fixtures/ir/scan/hlo-opt.txt', import.meta.url), 'utf8');
    for (let n = 0; n <= text.length; n += 3) {
      const cut = text.slice(0, n);
      expect(checkDiagnostics(cut, analyze(cut, 'hlo-opt').diagnostics)).toEqual([]);
    }
  }, 60_000);
});
