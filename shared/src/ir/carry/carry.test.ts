import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quoteOf, type Annotation } from '../../model/annotation';
import { DocumentKind, type DocumentMeta } from '../../model/document';
import { alignKeys, LCS_CELLS } from './align';
import { carryDocument, pairDocuments } from './carry';
import { linesOf, mapLines } from './line-map';
import { normalizeJaxpr } from './normalize';

/** The MLP captured, then captured again with `gelu` for `relu` (one line of the program edited). */
const dump = (name: 'mlp' | 'mlp_gelu', file: string): string => readFileSync(new URL(`../../../../test/fixtures/carry/${name}/${file}`, import.meta.url), 'utf8');

/** A note on the `nth` occurrence of `needle` in `text`, as the room stores it. */
function noteOn(text: string, needle: string, id: string, nth = 0): Annotation {
  let from = -1;
  for (let k = 0; k <= nth; k++) from = text.indexOf(needle, from + 1);
  if (from < 0) throw new Error(`not in the dump: ${needle}`);
  return {
    id, docId: 'old-doc', from, to: from + needle.length, quote: quoteOf(text, from, from + needle.length), kind: 'note', body: `about ${id}`,
    author: { id: 'u1', name: 'Ada', color: '#1971c2' }, createdAt: 1_700_000_000_000, resolved: id === 'resolved',
    replies: [{ id: 'r1', body: 'a reply', author: { id: 'u2', name: 'Bo', color: '#d9480f' }, createdAt: 1_700_000_000_500 }],
    instruction: '%x', bytes: 64,
  };
}

let ids = 0;
const ctx = { docId: 'new-doc', captureId: 'cap_prev', newId: () => `c${++ids}` };

/** Carries `notes` from the MLP's `file` to the edited MLP's, and returns each copy with the text it now covers. */
function carry(file: string, kind: DocumentKind, notes: readonly Annotation[]) {
  const next = dump('mlp_gelu', file);
  return carryDocument(dump('mlp', file), next, kind, notes, ctx).map((c) => ({ ...c, text: next.slice(c.from, c.to), line: next.slice(0, c.from).split('\n').length }));
}

describe('carrying annotations to a re-captured, edited program', () => {
  it('jaxpr: keeps an unchanged equation at its offsets, follows a renamed one, and detaches the relu that is gone', () => {
    const old = dump('mlp', 'jaxpr.txt');
    const [dot, sum, max] = carry('jaxpr.txt', DocumentKind.jaxpr, [
      noteOn(old, 'dot_general', 'dot'),
      noteOn(old, 'reduce_sum[axes=(1,) out_sharding=None] g', 'sum'),
      noteOn(old, 'max h 0.0:f32[]', 'max'),
    ]);
    expect([dot?.text, dot?.line, dot?.carried]).toEqual(['dot_general', 2, { annotationId: 'dot', docId: 'old-doc', captureId: 'cap_prev', detached: false }]);
    // `j:f32[32] = reduce_sum[…] g` is `o:f32[32] = reduce_sum[…] n` now: the whole equation, on its new line.
    expect([sum?.text, sum?.line, sum?.carried?.detached]).toEqual(['o:f32[32] = reduce_sum[axes=(1,) out_sharding=None] n        # program.py:6:11 (mlp)', 27, false]);
    // gelu has no `max`: detached at 0 with the original's quote.
    expect(max).toMatchObject({ from: 0, to: 0, quote: { exact: 'max h 0.0:f32[]' }, carried: { annotationId: 'max', detached: true } });
  });

  it('keeps kind, body, author, time, replies and resolved, and drops what was measured on the old dump', () => {
    const old = dump('mlp', 'jaxpr.txt');
    const original = noteOn(old, 'dot_general', 'resolved');
    const [copy] = carry('jaxpr.txt', DocumentKind.jaxpr, [original]);
    expect(copy).toMatchObject({ docId: 'new-doc', kind: 'note', body: 'about resolved', author: original.author, createdAt: original.createdAt, resolved: true, replies: original.replies });
    expect(copy?.id).not.toBe(original.id);
    expect(copy && ('instruction' in copy || 'bytes' in copy)).toBe(false);
    expect(copy?.quote).toEqual(quoteOf(dump('mlp_gelu', 'jaxpr.txt'), copy?.from ?? 0, copy?.to ?? 0));
    // The original is not touched.
    expect(original.docId).toBe('old-doc');
  });

  it('StableHLO: follows the divide whose SSA names changed, keeps the dot, detaches the maximum', () => {
    const old = dump('mlp', 'stablehlo.mlir');
    const [dot, div, max] = carry('stablehlo.mlir', DocumentKind.stablehlo, [
      noteOn(old, 'stablehlo.dot_general', 'dot'),
      noteOn(old, '%7 = stablehlo.divide %5, %6', 'div'),
      noteOn(old, 'stablehlo.maximum', 'max'),
    ]);
    expect([dot?.text, dot?.line]).toEqual(['stablehlo.dot_general', 3]);
    expect(div?.text).toMatch(/^%\d+ = stablehlo\.divide %\d+, %\d+ : tensor<32xf32>$/);
    expect(div?.text).not.toContain('%7 =');
    expect(div?.carried?.detached).toBe(false);
    expect(max?.carried?.detached).toBe(true);
  });

  it('HLO before optimization: the dot stays, the renamed add follows by structure, the relu computation detaches', () => {
    const old = dump('mlp', 'hlo.txt');
    const [dot, add, max] = carry('hlo.txt', DocumentKind.hlo, [
      noteOn(old, '%dot_general.1 = f32[32,128]{1,0} dot(%x.1, %w.1)', 'dot'),
      noteOn(old, '%add.7 = f32[32,128]{1,0} add(%dot_general.1, %add.6)', 'add'),
      noteOn(old, 'maximum(%Arg_0.1, %max.2)', 'max'),
    ]);
    expect(dot?.text).toBe('%dot_general.1 = f32[32,128]{1,0} dot(%x.1, %w.1)');
    expect(add?.text).toMatch(/^%add\.11 = f32\[32,128\]\{1,0\} add\(%dot_general\.1, %add\.10\)/);
    expect(max?.carried?.detached).toBe(true);
  });

  it('optimized HLO: follows the fused dot to its renamed operands (the quote where the line still holds it), and detaches the fused maximum', () => {
    const old = dump('mlp', 'hlo-opt.txt');
    const [dotOp, dotLine, add, max] = carry('hlo-opt.txt', DocumentKind.hloOpt, [
      noteOn(old, 'dot(%param_0.2, %param_1.6)', 'dot-op'),
      noteOn(old, '%dot_general.0', 'dot-name'),
      noteOn(old, '%add.0 = f32[32,128]{1,0} add(%dot_general.0, %add.1)', 'add'),
      noteOn(old, '%max.4 = f32[32,128]{1,0} maximum(%add.0, %max.5)', 'max'),
    ]);
    const next = dump('mlp_gelu', 'hlo-opt.txt');
    const dotLineNo = next.split('\n').findIndex((l) => l.includes('%dot_general.0 = ')) + 1;
    // `dot(%param_0.2, %param_1.6)` reads `dot(%param_0.5, %param_1.20)` now: the whole instruction.
    expect([dotOp?.line, dotOp?.text]).toEqual([dotLineNo, expect.stringMatching(/^%dot_general\.0 = f32\[32,128\]\{1,0\} dot\(%param_0\.5, %param_1\.20\)/)]);
    expect([dotLine?.line, dotLine?.text]).toEqual([dotLineNo, '%dot_general.0']);
    expect(add?.text).toMatch(/^%add\.3 = f32\[32,128\]\{1,0\} add\(%dot_general\.0, %add\.4\)/);
    expect(max).toMatchObject({ from: 0, to: 0, carried: { detached: true } });
  });

  it('maps a dump to itself line for line', () => {
    const text = dump('mlp', 'hlo-opt.txt');
    const { to } = mapLines(linesOf(text), linesOf(text), DocumentKind.hloOpt);
    expect([...to]).toEqual(text.split('\n').map((_, i) => i));
  });

  it('normalizes what a re-capture renames in a jaxpr, not what it computes', () => {
    expect(normalizeJaxpr('    j:f32[32] = reduce_sum[axes=(1,) out_sharding=None] g        # program.py:6:11 (mlp)'))
      .toBe(normalizeJaxpr('    o:f32[32] = reduce_sum[axes=(1,) out_sharding=None] n        # program.py:7:11 (mlp)'));
    expect(normalizeJaxpr('    f:f32[32,128] = add d e')).not.toBe(normalizeJaxpr('    f:f32[32,128] = mul d e'));
    expect(normalizeJaxpr('  in (k,) }')).toBe('in (_,) }');
  });

  it('bounds the work: a long stretch with no line unique to both sides is left unaligned, not compared cell by cell', () => {
    const n = Math.ceil(Math.sqrt(LCS_CELLS)) + 10;
    const a = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'x' : 'y'));
    const b = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'y' : 'x'));
    const out = new Int32Array(n).fill(-1);
    alignKeys(a, b, out);
    expect(out.every((j) => j === -1)).toBe(true);
    // A small one is aligned exactly.
    const small = new Int32Array(4).fill(-1);
    alignKeys(['x', 'y', 'x', 'y'], ['y', 'x', 'y', 'x'], small);
    expect([...small]).toEqual([-1, 0, 1, 2]);
  });
});

describe('pairDocuments', () => {
  const meta = (id: string, kind: DocumentKind, title: string): DocumentMeta => ({ id, kind, title, bytes: 1, sha256: id, createdAt: 0 });
  it('pairs each layer with the same layer, several of a kind by title, and never a trace', () => {
    const prev = [meta('j1', 'jaxpr', 'mlp: jaxpr'), meta('c1', 'text', 'mlp: cost analysis'), meta('m1', 'text', 'mlp: memory analysis'), meta('t1', 'trace', 'mlp: trace')];
    const next = [meta('m2', 'text', 'mlp: memory analysis'), meta('j2', 'jaxpr', 'mlp: jaxpr'), meta('c2', 'text', 'mlp: cost analysis'), meta('t2', 'trace', 'mlp: trace')];
    expect(Object.fromEntries([...pairDocuments(prev, next)].map(([k, v]) => [k, v.id]))).toEqual({ j1: 'j2', c1: 'c2', m1: 'm2' });
  });
});
