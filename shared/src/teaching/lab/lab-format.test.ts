import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LabFormatError, parseLab, type Lab } from './lab-format';

const labsDir = new URL('../../../../labs/', import.meta.url);
const shipped = (file: string): string => readFileSync(new URL(file, labsDir), 'utf8');

function formatError(text: string): LabFormatError {
  try {
    parseLab('bad.json', text);
  } catch (e) {
    if (e instanceof LabFormatError) return e;
    throw e;
  }
  throw new Error('parseLab accepted it');
}

/** The parts of a lab file the tests below spoil. */
interface LabJson {
  id: string;
  extra?: number;
  steps: Array<{ id: string; question: string; check: { kind?: string; capture: string } }>;
  captures: Array<{ args: string[]; capture: string[]; program: string }>;
}
const base = (): LabJson => JSON.parse(shipped('lab-2.1.json')) as LabJson;
const withChange = (change: (lab: LabJson) => void): string => {
  const lab = base();
  change(lab);
  return JSON.stringify(lab);
};

describe('the lab format', () => {
  it('reads every shipped lab, arguments as specs and defaults filled in', () => {
    const files = readdirSync(labsDir).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(['lab-2.1.json', 'lab-2.2.json', 'lab-2.3.json']);
    const labs: Lab[] = files.map((f) => parseLab(f, shipped(f)));
    expect(labs.map((l) => l.code)).toEqual(['LAB·2.1', 'LAB·2.2', 'LAB·2.3']);
    const mlp = labs[0]!.captures[0]!;
    expect(mlp.args).toEqual([{ dtype: 'bfloat16', shape: [32, 64] }, { dtype: 'bfloat16', shape: [64, 128] }, { dtype: 'bfloat16', shape: [128] }]);
    expect(mlp.xlaFlags).toBe('');
    expect(labs[1]!.steps.map((s) => s.check.kind)).toEqual(['capture-done', 'spill-annotated']);
    expect(labs[2]!.captures[0]!.capture).toContain('trace');
  });

  it('names the file and the place for text that is not JSON', () => {
    const e = formatError('{"id": "x",');
    expect(e.name).toBe('LabFormatError');
    expect(e.message).toMatch(/^bad\.json: not JSON/);
  });

  it('refuses an unknown check kind, an unknown key and a bad argument spec', () => {
    expect(formatError(withChange((l) => { l.steps[0]!.check = { kind: 'always-true', capture: 'mlp' }; })).message).toMatch(/steps\.0\.check\.kind/);
    expect(formatError(withChange((l) => { l.extra = 1; })).message).toMatch(/extra/);
    expect(formatError(withChange((l) => { l.captures[0]!.args[0] = 'q99[3]'; })).message).toMatch(/captures\.0\.args\.0: unknown dtype "q99"/);
  });

  it('refuses a step whose check names no capture, or a capture that cannot give what the check reads', () => {
    expect(formatError(withChange((l) => { l.steps[1]!.check.capture = 'nope'; })).message).toMatch(/no capture named nope/);
    expect(formatError(withChange((l) => { l.captures[0]!.capture = ['jaxpr']; })).message).toMatch(/mapping-complete needs capture mlp to capture stablehlo, hlo-opt/);
    expect(formatError(withChange((l) => { l.captures[0]!.program = 'ghost'; })).message).toMatch(/no program named ghost/);
  });

  it('refuses duplicate ids, hostile ids and oversized text', () => {
    expect(formatError(withChange((l) => { l.steps[1]!.id = l.steps[0]!.id; })).message).toMatch(/step id capture is used twice/);
    expect(formatError(withChange((l) => { l.id = '../../etc/passwd'; })).message).toMatch(/^bad\.json: id:/);
    expect(formatError(withChange((l) => { l.steps[0]!.question = 'x'.repeat(2001); })).message).toMatch(/steps\.0\.question/);
    expect(formatError(withChange((l) => { l.steps = []; })).message).toMatch(/steps/);
  });
});
