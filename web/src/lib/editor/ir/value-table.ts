import type { ValueInfo } from '@seam/shared/ir';

/**
 * Every value of a dump in columns, cheap to post from the analysis worker: names, scopes and types
 * as `\n`-joined strings (IR names and types hold no newline), and `from`, `to`, `line`, `bytes` of
 * value `i` at `nums[4i … 4i+3]`. 170k values of a 25 MB HLO dump take about 9 MB here against
 * 24 MB of JSON, and cloning them costs a copy rather than an object per value.
 */
export interface ValueColumns {
  readonly names: string;
  readonly scopes: string;
  readonly types: string;
  readonly nums: Float64Array;
}

/** The values of `list` in columns (see `ValueColumns`). */
export function valueColumns(list: readonly ValueInfo[]): ValueColumns {
  const nums = new Float64Array(list.length * 4);
  list.forEach((v, i) => nums.set([v.from, v.to, v.line, v.bytes], i * 4));
  return { names: list.map((v) => v.name).join('\n'), scopes: list.map((v) => v.scope).join('\n'), types: list.map((v) => v.type).join('\n'), nums };
}

/**
 * Values by bare name (`%fusion.3` → `fusion.3`), built from columns on the first lookup (the first
 * hover or go to definition), so that opening a dump never pays for it.
 */
export class ValueTable {
  private byName: Map<string, number[]> | null = null;
  private scopes: string[] | null = null;
  private types: string[] | null = null;
  private names: string[] = [];

  constructor(
    readonly columns: ValueColumns,
    private readonly bare: (name: string) => string,
  ) {}

  /** The number of values. */
  get size(): number {
    return this.columns.nums.length / 4;
  }

  /** Whether the by-name index is built (the first lookup builds it). */
  get indexed(): boolean {
    return this.byName !== null;
  }

  /** Whether a value of this bare name exists. */
  has(bareName: string): boolean {
    return this.index().has(bareName);
  }

  /** The values of this bare name, in dump order; undefined when there is none. */
  get(bareName: string): ValueInfo[] | undefined {
    const ids = this.index().get(bareName);
    return ids?.map((i) => this.at(i));
  }

  private at(i: number): ValueInfo {
    this.scopes ??= this.columns.scopes.split('\n');
    this.types ??= this.columns.types.split('\n');
    const n = this.columns.nums;
    return { name: this.names[i] ?? '', scope: this.scopes[i] ?? '', type: this.types[i] ?? '', from: n[i * 4] ?? 0, to: n[i * 4 + 1] ?? 0, line: n[i * 4 + 2] ?? 0, bytes: n[i * 4 + 3] ?? 0 };
  }

  private index(): Map<string, number[]> {
    if (this.byName) return this.byName;
    const m = new Map<string, number[]>();
    this.names = this.size ? this.columns.names.split('\n') : [];
    this.names.forEach((name, i) => {
      const k = this.bare(name);
      const list = m.get(k);
      if (list) list.push(i);
      else m.set(k, [i]);
    });
    this.byName = m;
    return m;
  }
}
