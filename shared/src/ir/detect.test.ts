import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectKind } from './detect';

const corpus = new URL('../../../test/fixtures/corpus/', import.meta.url);
const fixtures = new URL('../../../test/fixtures/ir/', import.meta.url);
const rows = readFileSync(new URL('MANIFEST.tsv', corpus), 'utf8')
  .split('\n')
  .slice(1)
  .filter((l) => l.trim())
  .map((l) => {
    const [file = '', , , , , , features = ''] = l.split('\t');
    return { file, features, text: readFileSync(new URL(file, corpus), 'utf8') };
  });

/** True when every line is blank or a comment: nothing for any parser to read. */
const onlyComments = (text: string): boolean => text.split('\n').every((l) => /^\s*(\/\/.*|#\s.*)?$/.test(l));

describe('detectKind', () => {
  it('tells every corpus jaxpr, MLIR file and trace by its folder', () => {
    for (const folder of ['jaxpr', 'stablehlo', 'trace'] as const) {
      const files = rows.filter((r) => r.file.startsWith(`${folder}/`));
      expect(files.length).toBeGreaterThan(0);
      for (const r of files) expect(detectKind(r.text), r.file).toBe(folder);
    }
  });

  it('tells corpus HLO as HLO, and scheduled modules as optimized HLO', () => {
    const hlo = rows.filter((r) => r.file.startsWith('hlo/') && !onlyComments(r.text));
    expect(hlo.length).toBeGreaterThan(400);
    for (const r of hlo) {
      const kind = detectKind(r.text);
      expect(['hlo', 'hlo-opt'], r.file).toContain(kind);
      if (/\bscheduled\b/.test(r.features)) expect(kind, r.file).toBe('hlo-opt');
    }
    // headerless modules, HLO proto text with `#` comments, and `/* … */` banners
    expect(rows.filter((r) => r.features.includes('no-header') && !onlyComments(r.text)).map((r) => detectKind(r.text)).every((k) => k.startsWith('hlo'))).toBe(true);
  });

  it('tells each layer of the real-JAX fixtures apart', () => {
    for (const program of readdirSync(fixtures)) {
      const at = (f: string): string => readFileSync(new URL(`${program}/${f}`, fixtures), 'utf8');
      expect(detectKind(at('jaxpr.txt')), program).toBe('jaxpr');
      expect(detectKind(at('stablehlo.mlir')), program).toBe('stablehlo');
      expect(detectKind(at('stablehlo-debug.mlir')), program).toBe('stablehlo');
      expect(detectKind(at('hlo.txt')), program).toBe('hlo');
      expect(detectKind(at('hlo-opt.txt')), program).toBe('hlo-opt');
    }
  });

  it("tells XLA's buffer assignment and memory-usage report from the other files of a dump folder", () => {
    const dump = new URL('../../../test/fixtures/xla-dump/', import.meta.url);
    const seen = new Set<string>();
    for (const folder of readdirSync(dump, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
      for (const file of readdirSync(new URL(`${folder}/`, dump))) {
        const kind = detectKind(readFileSync(new URL(`${folder}/${file}`, dump), 'utf8'));
        const expected = file.endsWith('-buffer-assignment.txt') ? 'buffer-assignment' : file.endsWith('-memory-usage-report.txt') ? 'memory-report' : undefined;
        if (expected) expect(kind, file).toBe(expected);
        else expect(['buffer-assignment', 'memory-report'], file).not.toContain(kind);
        seen.add(kind);
      }
    }
    expect([...seen]).toEqual(expect.arrayContaining(['buffer-assignment', 'memory-report', 'hlo', 'hlo-opt', 'text']));
    expect(detectKind('allocation 0: size 4, thread-local:\n value: <0 x @0> (size=4,offset=0): f32[]\n')).toBe('buffer-assignment');
    expect(detectKind('allocation tables: see below\n')).toBe('text');
    expect(detectKind('Memory Space:\n')).toBe('text');
  });

  it('falls back to text for prose, empty input and JSON that is not a trace', () => {
    expect(detectKind('')).toBe('text');
    expect(detectKind('Notes from Tuesday: the softmax spills.\n')).toBe('text');
    expect(detectKind('{"name": "not a trace"}')).toBe('text');
    expect(detectKind('[{"ph": "X", "name": "fusion.3", "ts": 1, "dur": 2}]')).toBe('trace');
  });

  it('reads the first statement after comments, not words further down', () => {
    expect(detectKind('// RUN: stablehlo-opt %s\nfunc.func @f() {\n  return\n}\n')).toBe('stablehlo');
    expect(detectKind('#loc1 = loc("x")\nmodule @jit_f {\n}\n')).toBe('stablehlo');
    expect(detectKind('let f = { lambda ; a:f32[]. let b:f32[] = neg a in (b,) } in\n{ lambda ; c:f32[]. let  in (c,) }')).toBe('jaxpr');
    expect(detectKind('ENTRY %e (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n')).toBe('hlo');
    expect(detectKind('fusion {\n  p0 = f32[256] parameter(0)\n  ROOT asin = f32[256] asin(p0)\n}\n')).toBe('hlo');
    expect(detectKind('{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }\n\nmodule {\n}\n')).toBe('jaxpr');
    expect(detectKind('{ lambda ; a:f32[]. let\n    debug_callback[callback=log fmt=\'{"ph": "X"}\'] a\n  in (a,) }')).toBe('jaxpr');
  });
});
