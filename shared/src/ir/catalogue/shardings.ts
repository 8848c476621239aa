import { CatalogueLayer } from './types';

/** A sharding a module carries as an attribute, where its text starts and ends. */
export interface ShardingAttribute {
  /** The sharding, whitespace collapsed: `{devices=[4,1,2]<=[8] last_tile_dim_replicate}`, `#sdy.sharding<@mesh, [{"data"}, {}]>`. */
  readonly label: string;
  readonly from: number;
  readonly to: number;
}

/** The longest sharding read; a longer one is labelled by its first characters and `…`. */
export const MAX_SHARDING_CHARS = 512;

const OPEN: Readonly<Record<string, string>> = { '{': '}', '<': '>' };

/** The bracketed text at `at` (`{…}` or `<…>`, nested alike), read at most `MAX_SHARDING_CHARS` on; its end, or -1 past the bound. */
function bracketEnd(text: string, at: number): number {
  const open = text[at];
  const close = open === undefined ? undefined : OPEN[open];
  if (!open || !close) return -1;
  let depth = 0;
  const stop = Math.min(text.length, at + MAX_SHARDING_CHARS);
  for (let i = at; i < stop; i++) {
    const c = text[i];
    // `<=[8]` in an iota tile assignment is no bracket.
    if (c === open && !(open === '<' && text[i + 1] === '=')) depth++;
    else if (c === close) {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === '\n') return -1;
  }
  return -1;
}

/** The label of a sharding's text: whitespace collapsed, bounded. */
function labelOf(text: string, from: number, end: number): string {
  if (end < 0) return `${text.slice(from, Math.min(text.length, from + MAX_SHARDING_CHARS)).split('\n')[0]?.replace(/\s+/g, ' ') ?? ''}…`;
  return text.slice(from, end).replace(/\s+/g, ' ');
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\w.]/.test(c);

/**
 * The shardings a dump carries as attributes, in text order: HLO `sharding={devices=[…]…}`,
 * `{replicated}`, `{maximal device=…}` on instructions and parameters; StableHLO
 * `mhlo.sharding = "…"` (labelled by the string's content, the HLO notation) and Shardy
 * `sdy.sharding = #sdy.sharding<…>` on arguments, results and ops, and `sdy.mesh @m = <…>`
 * (labelled `sdy.mesh @m = <…>`). jaxpr carries shardings only as ops. One pass over the text,
 * each sharding read at most `MAX_SHARDING_CHARS` long. Never throws.
 */
export function readShardings(layer: CatalogueLayer, text: string): ShardingAttribute[] {
  const out: ShardingAttribute[] = [];
  if (layer === CatalogueLayer.jaxpr) return out;
  const hlo = layer === CatalogueLayer.hlo || layer === CatalogueLayer.hloOpt;
  for (let p = text.indexOf('sharding'); p >= 0; p = text.indexOf('sharding', p + 1)) {
    if (hlo) {
      // `, sharding={devices=[2,1]<=[2]}`; not `allow_spmd_sharding_propagation…`, `"Sharding"` nor `op_name="…sharding=…"`.
      if (text[p - 1] !== ' ' || text[p - 2] !== ',' || text[p + 8] !== '=' || text[p + 9] !== '{') continue;
      const end = bracketEnd(text, p + 9);
      out.push({ label: labelOf(text, p + 9, end), from: p, to: end < 0 ? p + 9 : end });
      if (end > 0) p = end - 1;
      continue;
    }
    // `mhlo.sharding = "{replicated}"`, `sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>`.
    const mhlo = text.startsWith('mhlo.', p - 5);
    const sdy = text.startsWith('sdy.', p - 4);
    if (!mhlo && !sdy) continue;
    const start = p - (mhlo ? 5 : 4);
    if (isWordChar(text[start - 1])) continue;
    let q = p + 8;
    while (text[q] === ' ') q++;
    if (text[q] !== '=') continue;
    q++;
    while (text[q] === ' ') q++;
    if (mhlo) {
      if (text[q] !== '"') continue;
      const close = text.indexOf('"', q + 1);
      const end = close < 0 || close - q > MAX_SHARDING_CHARS || text.slice(q, close).includes('\n') ? -1 : close;
      out.push({ label: end < 0 ? labelOf(text, q + 1, -1) : labelOf(text, q + 1, end), from: start, to: end < 0 ? q : end + 1 });
      if (end > 0) p = end;
    } else {
      const open = text.indexOf('<', q);
      if (open < 0 || open - q > 40 || !text.startsWith('#sdy.sharding', q)) continue;
      const end = bracketEnd(text, open);
      out.push({ label: labelOf(text, q, end), from: start, to: end < 0 ? open : end });
      if (end > 0) p = end - 1;
    }
  }
  if (!hlo) {
    // `sdy.mesh @mesh = <["data"=4, "model"=2]>`
    for (let p = text.indexOf('sdy.mesh '); p >= 0; p = text.indexOf('sdy.mesh ', p + 1)) {
      const open = text.indexOf('<', p);
      if (open < 0 || open - p > 200 || text.slice(p, open).includes('\n')) continue;
      const end = bracketEnd(text, open);
      out.push({ label: labelOf(text, p, end), from: p, to: end < 0 ? open : end });
    }
    out.sort((a, b) => a.from - b.from);
  }
  return out;
}
