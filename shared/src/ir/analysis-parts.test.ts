import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from './analyze';
import { ANALYSIS_PARTS_VERSION, KEY_FIELDS, isAnalysisKeys, isAnalysisViews, readAnalysis, writeAnalysisKeys, writeAnalysisViews } from './analysis-parts';
import type { Analysis, CrossLayerKey, ValueInfo } from './types';

const dir = new URL('../../../test/fixtures/ir/', import.meta.url);
const FILES: ReadonlyArray<readonly [string, 'jaxpr' | 'stablehlo' | 'hlo' | 'hlo-opt']> = [
  ['jaxpr.txt', 'jaxpr'],
  ['stablehlo-debug.mlir', 'stablehlo'],
  ['stablehlo.mlir', 'stablehlo'],
  ['hlo.txt', 'hlo'],
  ['hlo-opt.txt', 'hlo-opt'],
];

/** What the parts travel as: JSON text. */
const viaJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const name = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\n'));
const nat = fc.nat({ max: 50_000_000 });
const value: fc.Arbitrary<ValueInfo> = fc.record({ name, scope: name, line: nat, type: name, bytes: nat, from: nat, to: nat });
const key: fc.Arbitrary<CrossLayerKey> = fc.record(
  {
    name: fc.string(),
    op: fc.string(),
    scope: fc.string(),
    line: nat,
    source: fc.record({ opName: fc.string(), file: fc.string(), line: nat, column: nat }, { requiredKeys: [] }),
    fusion: fc.string(),
    from: nat,
    to: nat,
  },
  { requiredKeys: ['name', 'op', 'scope', 'line', 'source', 'from', 'to'] },
);

describe('analysis parts', () => {
  it('gives back every fixture dump’s whole analysis from its views and keys parts, after JSON', () => {
    for (const program of readdirSync(dir)) {
      for (const [file, kind] of FILES) {
        let text: string;
        try {
          text = readFileSync(new URL(`${program}/${file}`, dir), 'utf8');
        } catch {
          continue;
        }
        const a = viaJson(analyze(text, kind));
        const back = readAnalysis(viaJson(writeAnalysisViews(a)), viaJson(writeAnalysisKeys(a)));
        expect(back, `${program}/${file}`).toStrictEqual(a);
      }
    }
  });

  it('gives back any values and keys, absent optional fields staying absent', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), fc.array(key, { maxLength: 20 }), (values, keys) => {
        const a: Analysis = { index: { kind: 'hlo', bytes: 1, lines: 1, outline: [], values, dots: [], fusions: [], spills: [], keys }, diagnostics: [] };
        const back = readAnalysis(viaJson(writeAnalysisViews(a)), viaJson(writeAnalysisKeys(a)));
        expect(back).toStrictEqual(viaJson(a));
      }),
    );
  });

  it('stores each repeated string of the keys once', () => {
    const a = analyze(readFileSync(new URL('mlp/hlo-opt.txt', dir), 'utf8'), 'hlo-opt');
    const p = writeAnalysisKeys(a);
    expect(p.keys.length).toBe(a.index.keys.length * KEY_FIELDS);
    expect(new Set(p.strings).size).toBe(p.strings.length);
    expect(p.strings.length).toBeLessThan(a.index.keys.length * 3);
  });

  it('recognizes its own parts and refuses other versions and shapes', () => {
    const a = analyze('HloModule m\n\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n', 'hlo');
    const views = viaJson(writeAnalysisViews(a));
    const keys = viaJson(writeAnalysisKeys(a));
    expect(isAnalysisViews(views)).toBe(true);
    expect(isAnalysisKeys(keys)).toBe(true);
    expect(isAnalysisViews(a)).toBe(false);
    expect(isAnalysisViews({ ...views, version: ANALYSIS_PARTS_VERSION + 1 })).toBe(false);
    expect(isAnalysisKeys({ ...keys, keys: [1, 2] })).toBe(false);
    expect(isAnalysisKeys(null)).toBe(false);
    expect(isAnalysisViews('views')).toBe(false);
  });
});
