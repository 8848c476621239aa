import { analyze } from '@seam/shared/ir';
import { describe, expect, it } from 'vitest';
import { bareName, buildLookup, toViewIndex, valueAt } from './lookup';
import { ValueTable, valueColumns } from './value-table';

import attentionHlo from '../../../../../test/fixtures/ir/attention/hlo-opt.txt?raw';

describe('value columns', () => {
  const index = analyze(attentionHlo, 'hlo-opt').index;

  it('gives back every value of a real dump exactly, by bare name, in dump order', () => {
    expect(index.values.length).toBeGreaterThan(10);
    const table = new ValueTable(valueColumns(index.values), bareName);
    expect(table.size).toBe(index.values.length);
    expect(table.indexed).toBe(false);
    for (const v of index.values) expect(table.get(bareName(v.name))).toContainEqual(v);
    expect(table.indexed).toBe(true);
    expect(table.has('no-such-value')).toBe(false);
    expect(table.get('no-such-value')).toBeUndefined();
  });

  it('survives a structured clone (the worker posts it) and answers lookups as the full index does', () => {
    const view = structuredClone(toViewIndex(index));
    expect('keys' in view).toBe(false);
    const fromView = buildLookup(view);
    const fromFull = buildLookup(index);
    for (const v of index.values.slice(0, 200)) expect(valueAt(fromView, `%${v.name}`, v.from)).toEqual(valueAt(fromFull, `%${v.name}`, v.from));
  });

  it('holds an empty dump', () => {
    const table = new ValueTable(valueColumns([]), bareName);
    expect(table.size).toBe(0);
    expect(table.has('')).toBe(false);
  });
});
