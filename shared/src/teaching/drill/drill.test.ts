import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentKind } from '../../model/document';
import { canonicalEinsum, checkAnswer, DrillAsk, formatExpected, generateDrill, MAX_ANSWER_CHARS, readBytes, type DrillItem, type DrillSource } from './index';

const fixture = (path: string): string => readFileSync(new URL(`../../../../test/fixtures/${path}`, import.meta.url), 'utf8');

const COURSE_STABLEHLO: DrillSource = { docId: 'd1', kind: DocumentKind.stablehlo, text: fixture('drill/course.stablehlo.mlir') };
const COURSE_JAXPR = { docId: 'd2', kind: DocumentKind.jaxpr, text: fixture('drill/course.jaxpr.txt') };
const COURSE_HLO = { docId: 'd3', kind: DocumentKind.hloOpt, text: fixture('drill/course.hlo-opt.txt') };
const BATCHED_JAXPR = { docId: 'd4', kind: DocumentKind.jaxpr, text: fixture('drill/batched.jaxpr.txt') };

/** Every question of `asks` the generator can make from `source`, in text order of subject. */
function all(source: DrillSource, asks: DrillAsk[]): DrillItem[] {
  return generateDrill(source, { seed: 1, count: 20, asks });
}

function about(items: DrillItem[], subject: string): DrillItem {
  const item = items.find((i) => i.question.subject === subject);
  if (!item) throw new Error(`no question about ${subject}: ${items.map((i) => i.question.subject).join(', ')}`);
  return item;
}

describe('the course drill (16×32 · 32×32 → ij,jk->ik)', () => {
  it('asks the einsum of the first dot_general of the StableHLO and accepts ij,jk->ik and its renamings', () => {
    const q = about(all(COURSE_STABLEHLO, [DrillAsk.einsum]), '%0');
    expect(q.question.prompt).toBe('Write the einsum of the dot_general %0 (16×32 · 32×32) on line 3.');
    expect(q.question.line).toBe(3);
    expect(COURSE_STABLEHLO.text.slice(q.question.from, q.question.to)).toMatch(/^%0 = stablehlo\.dot_general %arg0, %arg1/);
    expect(q.expected).toEqual({ ask: 'einsum', einsum: 'ij,jk->ik' });
    for (const right of ['ij,jk->ik', ' ab , bc -> ac ', 'mk,kn->mn', 'ij,jk→ik', 'IJ,JK->IK']) expect(checkAnswer(q.expected, right)).toEqual({ correct: true });
    for (const wrong of ['ij,kj->ik', 'ij,jk->ki', 'ij,jk->ijk', 'ij->ji', 'matmul']) expect(checkAnswer(q.expected, wrong).correct).toBe(false);
  });

  it('asks which dims contract ([1] x [0]) and which are batch (none), in the forms people write them', () => {
    const c = about(all(COURSE_STABLEHLO, [DrillAsk.contracting]), '%0');
    expect(c.expected).toEqual({ ask: 'contracting', lhs: [1], rhs: [0] });
    for (const right of ['[1] x [0]', '1 x 0', 'lhs 1 rhs 0', 'lhs: [1], rhs: [0]', '{1},{0}', '1/0', '[1]×[0]']) expect(checkAnswer(c.expected, right)).toEqual({ correct: true });
    for (const wrong of ['[0] x [1]', '[1]', '1', '[1, 0] x [0]']) expect(checkAnswer(c.expected, wrong).correct).toBe(false);
    const b = all(COURSE_STABLEHLO, [DrillAsk.batch])[0];
    if (!b) return expect.fail('no batch question');
    expect(b.expected).toEqual({ ask: 'batch', lhs: [], rhs: [] });
    for (const right of ['none', 'None', '[] x []', '-']) expect(checkAnswer(b.expected, right)).toEqual({ correct: true });
    expect(checkAnswer(b.expected, '[0] x [0]').correct).toBe(false);
    expect(formatExpected(c.expected)).toBe('[1] x [0]');
    expect(formatExpected(b.expected)).toBe('none');
  });

  it('asks the same questions of the jaxpr (variable e) and of the optimized HLO (dot_general.3)', () => {
    const j = about(all(COURSE_JAXPR, [DrillAsk.einsum]), 'e');
    expect(j.question.prompt).toBe('Write the einsum of the dot_general e (16×32 · 32×32) on line 2.');
    expect(checkAnswer(j.expected, 'ij,jk->ik').correct).toBe(true);
    const h = about(all(COURSE_HLO, [DrillAsk.einsum, DrillAsk.contracting]), 'dot_general.3');
    expect(h.question.prompt).toContain('the dot dot_general.3 (16×32 · 32×32)');
    expect(COURSE_HLO.text.split('\n')[h.question.line - 1]).toContain('%dot_general.3 = f32[16,32]{1,0} dot(');
  });

  it('reads the q·kᵀ dot of the attention HLO, which XLA wrote contracting rhs dimension 1 (ij,kj->ik)', () => {
    const source = { docId: 'a', kind: DocumentKind.hloOpt, text: fixture('ir/attention/hlo-opt.txt') };
    const c = about(all(source, [DrillAsk.contracting]), 'dot_general.2');
    expect(checkAnswer(c.expected, '[1] x [1]').correct).toBe(true);
    expect(checkAnswer(c.expected, '[1] x [0]').correct).toBe(false);
    const e = about(all(source, [DrillAsk.einsum]), 'dot_general.2');
    expect(checkAnswer(e.expected, 'qd,kd->qk').correct).toBe(true);
    expect(checkAnswer(e.expected, 'ij,jk->ik').correct).toBe(false);
  });
});

describe('batch dimensions', () => {
  it('asks the batch dims of a batched matmul (bij,bjk->bik) and accepts [0] x [0]', () => {
    const b = about(all(BATCHED_JAXPR, [DrillAsk.batch]), 'c');
    expect(b.expected).toEqual({ ask: 'batch', lhs: [0], rhs: [0] });
    expect(checkAnswer(b.expected, '[0] x [0]').correct).toBe(true);
    expect(checkAnswer(b.expected, 'none').correct).toBe(false);
    const e = about(all(BATCHED_JAXPR, [DrillAsk.einsum]), 'c');
    expect(checkAnswer(e.expected, 'bij,bjk->bik').correct).toBe(true);
    expect(checkAnswer(e.expected, 'xij,xjk->xik').correct).toBe(true);
    expect(checkAnswer(e.expected, 'ij,jk->ik').correct).toBe(false);
    const c = about(all(BATCHED_JAXPR, [DrillAsk.contracting]), 'c');
    expect(checkAnswer(c.expected, '[2] x [1]').correct).toBe(true);
  });

  it('reads batch dims from a corpus HLO dot (lhs_batch_dims={0}, contracting {1} x {1})', () => {
    const source = { docId: 'c', kind: DocumentKind.hlo, text: fixture('corpus/hlo/xla24__rand_000006.hlo') };
    const b = about(all(source, [DrillAsk.batch]), 'dot.11');
    expect(checkAnswer(b.expected, '{0},{0}').correct).toBe(true);
    const e = about(all(source, [DrillAsk.einsum]), 'dot.11');
    expect(checkAnswer(e.expected, 'bi,bi->b').correct).toBe(true);
  });
});

describe('fusion membership', () => {
  it('asks where an op of the optimized HLO is fused and accepts the fusion name, with or without %', () => {
    const items = all(COURSE_HLO, [DrillAsk.fused]);
    const exp = about(items, 'exp.0');
    expect(exp.expected).toEqual({ ask: 'fused', fusion: 'subtract_exponential_fusion' });
    for (const right of ['subtract_exponential_fusion', '%subtract_exponential_fusion', 'yes, into subtract_exponential_fusion.']) expect(checkAnswer(exp.expected, right)).toEqual({ correct: true });
    for (const wrong of ['no', 'reduce_divide_fusion', 'yes', 'subtract_exponential']) expect(checkAnswer(exp.expected, wrong).correct).toBe(false);
    expect(items.some((i) => i.question.subject.startsWith('param_') || i.question.subject.startsWith('constant'))).toBe(false);
  });

  it('asks about an unfused op too, whose answer is no', () => {
    const items = all(COURSE_HLO, [DrillAsk.fused]);
    const unfused = items.find((i) => i.expected.ask === 'fused' && i.expected.fusion === null);
    if (!unfused) return expect.fail('no unfused op asked about');
    expect(checkAnswer(unfused.expected, 'not fused').correct).toBe(true);
    expect(checkAnswer(unfused.expected, 'no').correct).toBe(true);
    expect(checkAnswer(unfused.expected, 'ynn_fusion').correct).toBe(false);
  });

  it('never asks about fusion in jaxpr or StableHLO, nor in HLO before optimization', () => {
    expect(all(COURSE_JAXPR, [DrillAsk.fused])).toEqual([]);
    expect(all(COURSE_STABLEHLO, [DrillAsk.fused])).toEqual([]);
    expect(all({ docId: 'h', kind: DocumentKind.hlo, text: fixture('ir/mlp/hlo.txt') }, [DrillAsk.fused])).toEqual([]);
  });
});

describe('value sizes', () => {
  it('asks the bytes of the 8192×8192 bf16 score matrix and accepts 128 MiB, 134217728 and 134 MB', () => {
    const source = { docId: 'a', kind: DocumentKind.stablehlo, text: fixture('ir/attention/stablehlo.mlir') };
    const q = about(all(source, [DrillAsk.bytes]), '%1');
    expect(q.expected).toEqual({ ask: 'bytes', bytes: 8192 * 8192 * 2 });
    for (const right of ['134217728', '134,217,728', '128MiB', '128 MiB', '134 MB', '0.125 GiB', '2**27', '1.34e8 B']) expect(checkAnswer(q.expected, right)).toEqual({ correct: true });
    for (const wrong of ['64 MiB', '268435456', '128', '128 parsecs', '-134217728']) expect(checkAnswer(q.expected, wrong).correct).toBe(false);
    expect(formatExpected(q.expected)).toBe('134,217,728 B (128 MiB)');
  });

  it('reads sizes in decimal and binary units', () => {
    expect(readBytes('64MiB')).toBe(67108864);
    expect(readBytes('67108864')).toBe(67108864);
    expect(readBytes('64 MB')).toBe(64e6);
    expect(readBytes('2 KiB')).toBe(2048);
    expect(readBytes('lots')).toBeUndefined();
  });
});

describe('generation', () => {
  it('is deterministic from the seed, mixes the asks and numbers the questions', () => {
    const a = generateDrill(COURSE_HLO, { seed: 7, count: 5 });
    expect(generateDrill(COURSE_HLO, { seed: 7, count: 5 })).toEqual(a);
    expect(a.map((i) => i.question.id)).toEqual(['q1', 'q2', 'q3', 'q4', 'q5']);
    expect(a.map((i) => i.question.ask)).toEqual(['einsum', 'contracting', 'batch', 'fused', 'bytes']);
    const others = [1, 2, 3, 4, 5, 6].map((seed) => generateDrill(COURSE_HLO, { seed, count: 5 }).map((i) => i.question.subject).join());
    expect(new Set(others).size).toBeGreaterThan(1);
  });

  it('asks the bytes of arrays, not of scalars, when the dump has arrays', () => {
    const items = all(COURSE_STABLEHLO, [DrillAsk.bytes]);
    expect(items.length).toBeGreaterThan(0);
    for (const i of items) expect(i.expected.ask === 'bytes' && i.expected.bytes >= 64).toBe(true);
    expect(items.some((i) => i.question.subject === '%5')).toBe(false);
  });

  it('gives fewer questions when the dump has fewer to ask, and none for a trace or plain text', () => {
    expect(generateDrill(BATCHED_JAXPR, { seed: 1, count: 20, asks: [DrillAsk.einsum] })).toHaveLength(1);
    expect(generateDrill({ docId: 't', kind: DocumentKind.text, text: 'hello' }, { seed: 1 })).toEqual([]);
    expect(generateDrill({ docId: 'x', kind: DocumentKind.stablehlo, text: 'garbage ((( <' }, { seed: 1 })).toEqual([]);
  });

  it('questions carry no answer: the expected part is separate', () => {
    for (const item of generateDrill(COURSE_HLO, { seed: 3, count: 20 })) {
      expect(Object.values(item.question)).not.toContain(formatExpected(item.expected));
    }
  });
});

describe('hostile answers are wrong, never thrown', () => {
  const items = generateDrill(COURSE_HLO, { seed: 2, count: 20 });
  const hostile: unknown[] = [
    '', '   ', 'x'.repeat(MAX_ANSWER_CHARS + 1), 'x'.repeat(1_000_000), '9'.repeat(150), '1e999', 'Infinity', 'NaN',
    'ïј,јк->ік', '𝑖𝑗,𝑗𝑘->𝑖𝑘', '\u202eik>-kj,ji', '<script>alert(1)</script>', "'; DROP TABLE drill_answers; --",
    '${process.exit(1)}', '[' .repeat(100), '(a+)+$'.repeat(20), null, undefined, 42, {}, ['ij,jk->ik'],
  ];
  it.each(Object.values(DrillAsk))('%s', (ask) => {
    const item = items.find((i) => i.question.ask === ask);
    if (!item) return expect.fail(`no ${ask} question`);
    for (const answer of hostile) expect(checkAnswer(item.expected, answer).correct).toBe(false);
  });
  it('canonicalEinsum reads no non-ASCII letters', () => {
    expect(canonicalEinsum('ïј,јк->ік')).toBeUndefined();
  });
});

describe('every dump of the fixtures and the corpus', () => {
  const root = new URL('../../../../test/fixtures/', import.meta.url);
  const manifest = readFileSync(new URL('corpus/MANIFEST.tsv', root), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t')[0] ?? '');
  const sources: DrillSource[] = [
    ...manifest.filter((f) => !f.startsWith('trace/')).map((f) => ({ docId: f, kind: f.startsWith('hlo/') ? DocumentKind.hloOpt : f.startsWith('jaxpr/') ? DocumentKind.jaxpr : DocumentKind.stablehlo, text: fixture(`corpus/${f}`) })),
    ...['mlp', 'attention', 'attention-fused', 'conv', 'scan', 'sharded', 'custom_jvp'].flatMap((d) => [
      { docId: `${d}/jaxpr`, kind: DocumentKind.jaxpr, text: fixture(`ir/${d}/jaxpr.txt`) },
      { docId: `${d}/stablehlo`, kind: DocumentKind.stablehlo, text: fixture(`ir/${d}/stablehlo.mlir`) },
      { docId: `${d}/hlo-opt`, kind: DocumentKind.hloOpt, text: fixture(`ir/${d}/hlo-opt.txt`) },
    ]),
    { docId: 'batched/stablehlo', kind: DocumentKind.stablehlo, text: fixture('drill/batched.stablehlo.mlir') },
    { docId: 'batched/hlo-opt', kind: DocumentKind.hloOpt, text: fixture('drill/batched.hlo-opt.txt') },
  ];

  it('asks only what the revealed answer answers: each question accepts its own expected answer and points at its subject', () => {
    let asked = 0;
    const asks = new Set<string>();
    for (const source of sources) {
      for (const item of generateDrill(source, { seed: 11, count: 20 })) {
        asked++;
        asks.add(item.question.ask);
        const shown = formatExpected(item.expected);
        expect(checkAnswer(item.expected, shown), `${source.docId} ${item.question.id}: ${shown}`).toEqual({ correct: true });
        expect(source.text.slice(item.question.from, item.question.to)).toContain(item.question.subject.replace(/^%/, '').replace(/#\d+$/, ''));
        expect(source.text.slice(0, item.question.from).split('\n').length, `${source.docId} ${item.question.id}`).toBe(item.question.line);
      }
    }
    expect(asks).toEqual(new Set(Object.values(DrillAsk)));
    expect(asked).toBeGreaterThan(500);
  }, 120_000);

  it('reads batch dims in all three forms of the batched matmul (bij,bjk->bik)', () => {
    for (const source of sources.filter((s) => s.docId.startsWith('batched/')).concat([BATCHED_JAXPR])) {
      const b = all(source, [DrillAsk.batch])[0];
      if (!b) return expect.fail(`no batch question in ${source.docId}`);
      expect(b.expected, source.docId).toEqual({ ask: 'batch', lhs: [0], rhs: [0] });
      expect(checkAnswer(b.expected, '[0] x [0]').correct).toBe(true);
    }
  });
});
