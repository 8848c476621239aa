import { describe, expect, it } from 'vitest';
import { artifactName } from './capture-artifacts';

describe('capture artifact names', () => {
  it('names dumps by their layer and text artifacts by what they hold', () => {
    const named = [
      ['jaxpr', 'mlp: jaxpr'], ['stablehlo', 'mlp: StableHLO'], ['hlo', 'mlp: HLO (before optimization)'], ['hlo-opt', 'mlp: HLO (optimized)'],
      ['text', 'mlp: cost analysis'], ['text', 'mlp: memory analysis'], ['trace', 'mlp: profiler trace'], ['text', 'mlp: per-op device time'],
    ].map(([kind, title]) => artifactName({ kind: kind as 'text', title: title! }, 'mlp'));
    expect(named).toEqual(['jaxpr', 'StableHLO', 'HLO', 'optimized HLO', 'cost analysis', 'memory analysis', 'trace', 'per-op device time']);
  });

  it('keeps a text title that does not start with the entry, and never gives an empty name', () => {
    expect(artifactName({ kind: 'text', title: 'notes.txt' }, 'mlp')).toBe('notes.txt');
    expect(artifactName({ kind: 'text', title: 'mlp: ' }, 'mlp')).toBe('text');
  });
});
