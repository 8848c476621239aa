import { analyze } from '@seam/shared/ir';
import { describe, expect, it } from 'vitest';
import { MAX_PROMINENT_RANK, PROMINENT_SHARE, rankSpills } from './spill-rank';

import attentionHlo from '../../../../../test/fixtures/ir/attention/hlo-opt.txt?raw';

const MiB = 1 << 20;

describe('spill ranks', () => {
  it('ranks by size, equal sizes sharing a rank, and gives each its share of the largest', () => {
    const r = rankSpills([{ bytes: 16 * MiB }, { bytes: 64 * MiB }, { bytes: 64 * MiB }, { bytes: 8 * MiB }]);
    expect(r.map((x) => x.rank)).toEqual([3, 1, 1, 4]);
    expect(r.map((x) => x.share)).toEqual([0.25, 1, 1, 0.125]);
  });

  it('makes prominent only the few large ones: at least an eighth of the largest and within the first five ranks', () => {
    const r = rankSpills([{ bytes: 100 }, { bytes: 13 }, { bytes: 12 }, { bytes: 99 }]);
    expect(r.map((x) => x.prominent)).toEqual([true, true, false, true]);
    const many = rankSpills(Array.from({ length: 8 }, (_, i) => ({ bytes: 100 - i })));
    expect(many.filter((x) => x.prominent).length).toBe(MAX_PROMINENT_RANK);
    expect(PROMINENT_SHARE).toBe(0.125);
  });

  it('has nothing to rank in a module without spills, and no share for empty ones', () => {
    expect(rankSpills([])).toEqual([]);
    expect(rankSpills([{ bytes: 0 }])).toEqual([{ rank: 1, share: 0, prominent: false }]);
  });

  it('on the naive attention dump, makes the S×S buffers prominent and the small ones subdued', () => {
    const spills = analyze(attentionHlo, 'hlo-opt').index.spills;
    const ranks = rankSpills(spills);
    const prominent = spills.filter((_, i) => ranks[i]!.prominent).map((s) => s.bytes);
    expect(spills.length).toBe(14);
    expect(prominent.sort((a, b) => b - a)).toEqual([256 * MiB, 256 * MiB, 256 * MiB, 128 * MiB]);
    const smallest = spills.findIndex((s) => s.bytes === 16 * 1024);
    expect(ranks[smallest]).toMatchObject({ rank: 14, prominent: false });
  });
});
