import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '../../model/document';
import { diffModules } from './diff';
import { diffToMarkdown } from './markdown';

/**
 * Property: `diffModules` never throws and its counts stay consistent, whatever is done to two real
 * compiled modules: each cut at any offset, bytes overwritten by characters that matter to HLO,
 * and read as HLO before or after optimization.
 */
const names = ['attention', 'attention_online', 'mlp', 'mlp_remat'];
const texts = names.map((n) => readFileSync(new URL(`../../../../test/fixtures/diff/${n}/hlo-opt.txt`, import.meta.url), 'utf8'));
const NASTY = ['{', '}', '(', ')', '%', '=', ',', '\n', 'ROOT ', 'fusion(', 'parameter(0)', 'calls=%fused_computation', '/*', '"', '\ud83d', '0'];

const side = fc.record({
  file: fc.nat({ max: texts.length - 1 }),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  flips: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), with: fc.constantFrom(...NASTY) }), { maxLength: 5 }),
  kind: fc.constantFrom(DocumentKind.hlo, DocumentKind.hloOpt),
});

function damaged(m: { file: number; cut: number; flips: { at: number; with: string }[] }): string {
  const text = texts[m.file] ?? '';
  let t = text.slice(0, Math.ceil(text.length * m.cut));
  for (const f of m.flips) {
    const at = Math.floor(t.length * f.at);
    t = t.slice(0, at) + f.with + t.slice(at + 1);
  }
  return t;
}

describe('diffModules on damaged modules', () => {
  it('never throws, and every instruction is matched, added or removed exactly once', () => {
    fc.assert(
      fc.property(side, side, (ma, mb) => {
        const d = diffModules(damaged(ma), damaged(mb), { kindA: ma.kind, kindB: mb.kind });
        expect(d.summary.matched + d.summary.removed).toBe(d.a.instructions);
        expect(d.summary.matched + d.summary.added).toBe(d.b.instructions);
        expect(new Set(d.pairs.map((p) => `${p.a.scope}\u0000${p.a.name}\u0000${p.a.line}`)).size).toBe(d.pairs.length);
        if (ma.kind === DocumentKind.hlo) expect(d.spills.every((s) => s.a === undefined)).toBe(true);
        expect(typeof diffToMarkdown(d)).toBe('string');
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
