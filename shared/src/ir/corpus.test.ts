import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DocumentKind } from '../model/document';
import { analyze } from './analyze';
import { checkDiagnostics } from './parser-contract';

/**
 * Every file of the corpus of real dumps written by others (test/fixtures/corpus, with its
 * MANIFEST.tsv): valid files index with no error, invalid-by-design files return without
 * throwing, with an error where the fault is syntactic.
 */
const root = new URL('../../../test/fixtures/corpus/', import.meta.url);
const rows = readFileSync(new URL('MANIFEST.tsv', root), 'utf8')
  .split('\n')
  .slice(1)
  .filter((l) => l.trim())
  .map((l) => {
    const [file = '', , , , , kind = '', features = ''] = l.split('\t');
    return { file, kind, features };
  });

const KIND_OF_FOLDER: Record<string, DocumentKind> = { hlo: 'hlo-opt', stablehlo: 'stablehlo', jaxpr: 'jaxpr', trace: 'trace' };

/** Invalid-by-design files whose fault is in the syntax, with what the diagnostic must say. */
const SYNTACTIC_FAULTS: Record<string, RegExp> = {
  'hlo/xla__hlo_parser_test__err_UnterminatedComment.hlo': /unterminated/,
  'hlo/xla__hlo_parser_test__err_MultipleRoots.hlo': /second ROOT/,
  'hlo/xla__hlo_parser_test__err_DuplicateParameterNumberIsDetected.hlo': /parameter number \d+ appears twice/,
};

/** True when a text holds nothing but blank lines and `//` or `#` comment lines. */
function onlyComments(text: string): boolean {
  return text.split('\n').every((l) => /^\s*(\/\/.*|#.*)?$/.test(l));
}

function read(file: string): string {
  return readFileSync(new URL(file, root), 'utf8');
}

describe('corpus of real dumps', () => {
  it('lists every file it holds', () => {
    expect(rows.length).toBe(890);
    for (const folder of Object.keys(KIND_OF_FOLDER)) expect(rows.some((r) => r.file.startsWith(`${folder}/`))).toBe(true);
  });

  for (const folder of Object.keys(KIND_OF_FOLDER)) {
    const kind = KIND_OF_FOLDER[folder] as DocumentKind;
    const valid = rows.filter((r) => r.file.startsWith(`${folder}/`) && !r.kind.includes('invalid-by-design'));
    const invalid = rows.filter((r) => r.file.startsWith(`${folder}/`) && r.kind.includes('invalid-by-design'));

    it(`indexes all ${valid.length} valid ${folder} files with no error and a non-empty index`, () => {
      const failures: string[] = [];
      for (const r of valid) {
        const text = read(r.file);
        const { index, diagnostics } = analyze(text, kind);
        const errors = diagnostics.filter((d) => d.severity === 'error');
        if (errors.length > 0) failures.push(`${r.file}: ${errors[0]?.message} at ${errors[0]?.from}`);
        const problems = checkDiagnostics(text, diagnostics);
        if (problems.length > 0) failures.push(`${r.file}: ${problems[0]}`);
        // Traces have no index of their own here (DumpIndex holds IR), and a file of comments holds nothing.
        if (kind !== 'trace' && !onlyComments(text) && index.values.length + index.keys.length === 0) failures.push(`${r.file}: empty index`);
      }
      expect(failures).toEqual([]);
    }, 120_000);

    if (invalid.length > 0) {
      it(`returns from all ${invalid.length} invalid-by-design ${folder} files, with an error where the fault is syntactic`, () => {
        for (const r of invalid) {
          const text = read(r.file);
          const { diagnostics } = analyze(text, kind);
          expect(checkDiagnostics(text, diagnostics), r.file).toEqual([]);
          const fault = SYNTACTIC_FAULTS[r.file];
          if (fault) expect(diagnostics.filter((d) => d.severity === 'error').map((d) => d.message).join('\n'), r.file).toMatch(fault);
        }
      }, 60_000);
    }
  }

  it('knows which HLO files have a syntax fault', () => {
    for (const file of Object.keys(SYNTACTIC_FAULTS)) expect(rows.find((r) => r.file === file)?.kind).toContain('invalid-by-design');
  });
});
