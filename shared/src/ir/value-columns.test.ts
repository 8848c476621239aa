import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyze } from './analyze';
import { decodeValueColumns, valueColumnsOf, valuesOf } from './value-columns';

const hlo = readFileSync(new URL('../../../test/fixtures/ir/attention/hlo-opt.txt', import.meta.url), 'utf8');

describe('value columns', () => {
  const values = analyze(hlo, 'hlo-opt').index.values;
  const columns = JSON.parse(JSON.stringify(valueColumnsOf(values))) as ReturnType<typeof valueColumnsOf>;

  it('give back every value, and the joined columns the views take', () => {
    expect(valuesOf(columns)).toStrictEqual(values);
    const d = decodeValueColumns(columns);
    expect(d.names.split('\n')).toEqual(values.map((v) => v.name));
    expect(d.scopes.split('\n')).toEqual(values.map((v) => v.scope));
    expect(d.types.split('\n')).toEqual(values.map((v) => v.type));
    expect([...d.nums]).toEqual(values.flatMap((v) => [v.from, v.to, v.line, v.bytes]));
  });

  it('store each scope and type once and offsets as small differences', () => {
    expect(columns.scopeTable.length).toBe(new Set(values.map((v) => v.scope)).size);
    expect(columns.typeTable.length).toBe(new Set(values.map((v) => v.type)).size);
    expect(Math.max(...columns.nums.filter((_, i) => i % 4 === 0))).toBeLessThan(Math.max(...values.map((v) => v.from)));
  });

  it('are empty for no values', () => {
    expect(valuesOf(valueColumnsOf([]))).toEqual([]);
    expect(decodeValueColumns(valueColumnsOf([]))).toEqual({ names: '', scopes: '', types: '', nums: new Float64Array(0) });
  });
});
