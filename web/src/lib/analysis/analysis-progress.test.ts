import { describe, expect, it } from 'vitest';
import { analysesProgress, analysisProgress } from './analysis-progress';

const attention = { title: 'attention.hlo-opt', bytes: 14 * 1024 * 1024 };
const stablehlo = { title: 'attention.stablehlo', bytes: 2048 };

describe('what a view says while an analysis loads or after it failed', () => {
  it('names the document and its size while loading', () => {
    expect(analysisProgress({ state: 'loading' }, attention)).toBe('Analysing attention.hlo-opt… 14 MiB');
  });

  it('says why when it failed, and nothing once it is in or never asked for', () => {
    expect(analysisProgress({ state: 'failed', message: 'the analysis request answered 413' }, attention)).toBe('Could not analyse attention.hlo-opt: the analysis request answered 413');
    expect(analysisProgress({ state: 'ready' }, attention)).toBeNull();
    expect(analysisProgress(undefined, attention)).toBeNull();
  });

  it('reads a document gone from the room as “the document”', () => {
    expect(analysisProgress({ state: 'loading' }, undefined)).toBe('Analysing the document…');
  });

  it('of several, reports a failure before one still loading, and nothing when all are in', () => {
    const docs: Record<string, typeof attention> = { h: attention, s: stablehlo };
    expect(analysesProgress(['s', 'h'], { s: { state: 'loading' }, h: { state: 'failed', message: 'out of memory' } }, (id) => docs[id])).toBe('Could not analyse attention.hlo-opt: out of memory');
    expect(analysesProgress(['s', 'h'], { s: { state: 'loading' }, h: { state: 'ready' } }, (id) => docs[id])).toBe('Analysing attention.stablehlo… 2 KiB');
    expect(analysesProgress(['s', 'h'], { s: { state: 'ready' }, h: { state: 'ready' } }, (id) => docs[id])).toBeNull();
  });
});
