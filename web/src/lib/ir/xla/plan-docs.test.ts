import { describe, expect, it } from 'vitest';
import type { DocumentMeta } from '@seam/shared/model';
import { assignmentDocsFor, hloCandidatesFor, isPlanText, memoryReportDocOf, namesModule, passDocsOf, passLabel } from './plan-docs';

let n = 0;
function doc(kind: DocumentMeta['kind'], title: string, module?: DocumentMeta['module']): DocumentMeta {
  n++;
  return { id: `d${n}`, title, kind, bytes: 1, sha256: `s${n}`, createdAt: n, ...(module ? { module } : {}) };
}
const mod = (groupId: string, name: string, path: string, pass?: NonNullable<DocumentMeta['module']>['pass']) => ({ groupId, name, path, ...(pass ? { pass } : {}) });

describe('which documents hold XLA’s plan for an optimized HLO', () => {
  it('takes the buffer assignments of the HLO’s module group, all of its split files', () => {
    const hlo = doc('hlo-opt', 'after', mod('g1', 'jit_mlp', 'a.txt'));
    const ba = doc('buffer-assignment', 'ba', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt'));
    const live = doc('buffer-assignment', 'live', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.cpu_after_optimizations-live-range.txt'));
    const other = doc('buffer-assignment', 'other', mod('g2', 'jit_mlp', 'module_0001.jit_mlp.cpu_after_optimizations-buffer-assignment.txt'));
    expect(assignmentDocsFor([hlo, ba, other, live], hlo, 'jit_mlp')).toEqual([ba, live]);
  });

  it('takes the live ranges and used values the room stores as text, in the group only', () => {
    const hlo = doc('hlo-opt', 'after', mod('g1', 'jit_mlp', 'a.txt'));
    const ba = doc('buffer-assignment', 'ba', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt'));
    const live = doc('text', 'live', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.cpu_after_optimizations-live-range.txt'));
    const values = doc('text', 'values', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment-values.txt'));
    const notes = doc('text', 'notes', mod('g1', 'jit_mlp', 'module_0000.jit_mlp.debug_options'));
    expect(isPlanText(live)).toBe(true);
    expect(isPlanText(notes)).toBe(false);
    expect(isPlanText(doc('text', 'module_0000.jit_mlp.cpu_after_optimizations-live-range.txt'))).toBe(false);
    expect(assignmentDocsFor([hlo, ba, live, values, notes], hlo, 'jit_mlp')).toEqual([ba, live, values]);
  });

  it('without a group, takes the newest buffer assignment whose module or title names the HLO’s module, as a whole word', () => {
    const hlo = doc('hlo-opt', 'mlp.txt');
    const mlp = doc('buffer-assignment', 'module_0000.jit_mlp.cpu_after_optimizations-buffer-assignment.txt');
    const mlp2 = doc('buffer-assignment', 'module_0003.jit_mlp2.cpu_after_optimizations-buffer-assignment.txt');
    expect(assignmentDocsFor([hlo, mlp, mlp2], hlo, 'jit_mlp')).toEqual([mlp]);
    const again = doc('buffer-assignment', 'module_0009.jit_mlp.cpu_after_optimizations-buffer-assignment.txt');
    expect(assignmentDocsFor([hlo, again, mlp, mlp2], hlo, 'jit_mlp')).toEqual([again]);
    expect(assignmentDocsFor([hlo, mlp, mlp2], hlo, null)).toEqual([]);
    expect(namesModule('a.jit_mlp.b', 'jit_mlp')).toBe(true);
    expect(namesModule('a.jit_mlp2.b', 'jit_mlp')).toBe(false);
  });

  it('offers a buffer assignment its group’s optimized HLO, else every one newest first, never a pass dump', () => {
    const old = doc('hlo-opt', 'old');
    const pass = doc('hlo-opt', 'pass', mod('g1', 'jit_mlp', 'p.txt', { index: 3, name: 'fusion', when: 'after' }));
    const fresh = doc('hlo-opt', 'new');
    const ba = doc('buffer-assignment', 'ba');
    expect(hloCandidatesFor([old, pass, fresh, ba], ba)).toEqual([fresh, old]);
  });

  it('lists a module group’s pass dumps in pass order with their pass as label', () => {
    const b = doc('hlo', 'b', mod('g1', 'jit_mlp', 'b.txt', { index: 2, pipeline: 'simplification', name: 'algsimp', when: 'after' }));
    const a = doc('hlo', 'a', mod('g1', 'jit_mlp', 'a.txt', { index: 1, name: 'pipeline-start', when: 'after' }));
    const main = doc('hlo-opt', 'main', mod('g1', 'jit_mlp', 'm.txt'));
    expect(passDocsOf([b, main, a], main)).toEqual([a, b]);
    expect(passDocsOf([b, main, a], doc('hlo', 'loose'))).toEqual([]);
    expect(passLabel(b)).toBe('after algsimp (simplification)');
  });
});

describe('the memory-usage report beside an optimized HLO', () => {
  it('is its module group’s, and none outside a group', () => {
    const hlo = doc('hlo-opt', 'a.txt', mod('g1', 'jit_mlp', 'a.txt'));
    const own = doc('memory-report', 'a-memory-usage-report.txt', mod('g1', 'jit_mlp', 'a-memory-usage-report.txt'));
    const other = doc('memory-report', 'b-memory-usage-report.txt', mod('g2', 'jit_mlp', 'b-memory-usage-report.txt'));
    expect(memoryReportDocOf([other, hlo, own], hlo)?.id).toBe(own.id);
    expect(memoryReportDocOf([other, own], doc('hlo-opt', 'loose.hlo'))).toBeUndefined();
    expect(memoryReportDocOf([other, hlo], hlo)).toBeUndefined();
  });
});
