import type { ValueInfo } from './types';

/**
 * Every value of a dump in columns, as the analysis views part stores it. Names are `\n`-joined
 * (the parsers never put a newline in a name, scope or type); scopes and types repeat, so each is
 * stored once in `scopeTable` / `typeTable` and named per value by its index there; `nums` holds
 * four integers per value: `from` minus the previous value's `from`, `to − from`, `line` minus the
 * previous value's `line`, and `bytes`. Values come in text order, so the differences are small:
 * 170k values of a 25 MB HLO dump take 6 MB of JSON here, against 24 MB as objects.
 */
export interface ValueColumnsJson {
  readonly names: string;
  readonly scopeTable: readonly string[];
  readonly scopes: readonly number[];
  readonly typeTable: readonly string[];
  readonly types: readonly number[];
  readonly nums: readonly number[];
}

/**
 * The values as the views take them: names, scopes and types `\n`-joined, and `from`, `to`,
 * `line`, `bytes` of value `i` at `nums[4i … 4i+3]` (a `Float64Array`, cheap to post).
 */
export interface DecodedValueColumns {
  readonly names: string;
  readonly scopes: string;
  readonly types: string;
  readonly nums: Float64Array;
}

/** Numbers distinct strings in order of first use: `id(s)` is the index of `s` in `table`. */
export function stringTable(): { readonly table: string[]; id(s: string): number } {
  const table: string[] = [];
  const ids = new Map<string, number>();
  return {
    table,
    id(s) {
      let id = ids.get(s);
      if (id === undefined) {
        id = table.length;
        table.push(s);
        ids.set(s, id);
      }
      return id;
    },
  };
}

/** The values of `list` in columns (see `ValueColumnsJson`). */
export function valueColumnsOf(list: readonly ValueInfo[]): ValueColumnsJson {
  const scopes = stringTable();
  const types = stringTable();
  const nums = new Array<number>(list.length * 4);
  let from = 0;
  let line = 0;
  list.forEach((v, i) => {
    nums[i * 4] = v.from - from;
    nums[i * 4 + 1] = v.to - v.from;
    nums[i * 4 + 2] = v.line - line;
    nums[i * 4 + 3] = v.bytes;
    from = v.from;
    line = v.line;
  });
  return {
    names: list.map((v) => v.name).join('\n'),
    scopeTable: scopes.table,
    scopes: list.map((v) => scopes.id(v.scope)),
    typeTable: types.table,
    types: list.map((v) => types.id(v.type)),
    nums,
  };
}

/** The columns as the views take them (see `DecodedValueColumns`). */
export function decodeValueColumns(c: ValueColumnsJson): DecodedValueColumns {
  const n = c.scopes.length;
  const nums = new Float64Array(n * 4);
  let from = 0;
  let line = 0;
  for (let i = 0; i < n * 4; i += 4) {
    from += c.nums[i] ?? 0;
    line += c.nums[i + 2] ?? 0;
    nums[i] = from;
    nums[i + 1] = from + (c.nums[i + 1] ?? 0);
    nums[i + 2] = line;
    nums[i + 3] = c.nums[i + 3] ?? 0;
  }
  const column = (table: readonly string[], ids: readonly number[]) => ids.map((id) => table[id] ?? '').join('\n');
  return { names: c.names, scopes: column(c.scopeTable, c.scopes), types: column(c.typeTable, c.types), nums };
}

/** The values of columns, as objects. */
export function valuesOf(c: ValueColumnsJson): ValueInfo[] {
  const n = c.scopes.length;
  if (n === 0) return [];
  const { nums } = decodeValueColumns(c);
  const names = c.names.split('\n');
  const out = new Array<ValueInfo>(n);
  for (let i = 0; i < n; i++) {
    const j = i * 4;
    out[i] = { name: names[i] ?? '', scope: c.scopeTable[c.scopes[i] ?? -1] ?? '', line: nums[j + 2] ?? 0, type: c.typeTable[c.types[i] ?? -1] ?? '', bytes: nums[j + 3] ?? 0, from: nums[j] ?? 0, to: nums[j + 1] ?? 0 };
  }
  return out;
}
