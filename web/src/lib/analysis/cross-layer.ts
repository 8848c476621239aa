import { lacksDebugInfo, linkLayers, mappingToMarkdown, type Analysis, type FusionInfo, type MappingRow } from '@seam/shared/ir';
import type { Layer } from '@seam/shared/model';
import type { LinkResult } from './worker-protocol';

export { layerOf, type Layer } from '@seam/shared/model';

/** Counterpart lines (1-based) in each layer. */
export type Counterparts = Readonly<Record<Layer, readonly number[]>>;

/**
 * One program's three layers joined: the mapping rows (one per jaxpr equation) and, for each line of
 * each layer, the rows it belongs to. A jaxpr equation owns the lines of its whole span; StableHLO
 * ops and HLO instructions own their line, and an instruction inside a fused computation also
 * brings along the fusion instruction that calls it.
 */
export class CrossLayer {
  readonly rows: readonly MappingRow[];
  /** The StableHLO has no `loc(…)` debug info, so its column is empty. */
  readonly stablehloWithoutLocs: boolean;
  private readonly byLine: Record<Layer, Map<number, number[]>> = { jaxpr: new Map(), stablehlo: new Map(), hlo: new Map() };
  private readonly rowLines: Array<Record<Layer, number[]>> = [];

  /** The layers as linked (in the analysis worker), the HLO fusions, and the jaxpr text. */
  constructor(link: LinkResult, hloFusions: readonly FusionInfo[], jaxprText: string) {
    this.rows = link.rows;
    this.stablehloWithoutLocs = link.stablehloWithoutLocs;
    const fusionLine = new Map(hloFusions.map((f) => [f.name.replace(/^%/, ''), f.line]));
    const spanEnd = new Map(link.jaxprSpans);
    this.rows.forEach((r, i) => {
      const to = spanEnd.get(r.line);
      const last = to === undefined ? r.line : r.line + countNewlines(jaxprText, jaxprText.length ? offsetOfLine(jaxprText, r.line) : 0, to);
      const jaxprLines: number[] = [];
      for (let n = r.line; n <= last; n++) jaxprLines.push(n);
      const hloLines = r.hlo.flatMap((o) => {
        const f = o.fusion ? fusionLine.get(o.fusion.replace(/^%/, '')) : undefined;
        return f === undefined ? [o.line] : [o.line, f];
      });
      const lines = { jaxpr: jaxprLines, stablehlo: r.stablehlo.map((o) => o.line), hlo: hloLines };
      this.rowLines.push(lines);
      for (const layer of ['jaxpr', 'stablehlo', 'hlo'] as const) {
        for (const n of lines[layer]) {
          const list = this.byLine[layer].get(n);
          if (list) list.push(i);
          else this.byLine[layer].set(n, [i]);
        }
      }
    });
  }

  /** Links three full analyses here (tests, and texts at hand); the views link in the worker. */
  static of(jaxpr: Analysis, stablehlo: Analysis, hlo: Analysis, jaxprText: string): CrossLayer {
    const jaxprSpans = jaxpr.index.keys.map((k) => [k.line, k.to] as const);
    return new CrossLayer({ rows: linkLayers(jaxpr, stablehlo, hlo), jaxprSpans, stablehloWithoutLocs: lacksDebugInfo(stablehlo) }, hlo.index.fusions, jaxprText);
  }

  /** The lines in every layer that belong with `line` of `layer` (empty lists when it maps to nothing). */
  counterparts(layer: Layer, line: number): Counterparts {
    const out: Record<Layer, Set<number>> = { jaxpr: new Set(), stablehlo: new Set(), hlo: new Set() };
    for (const i of this.byLine[layer].get(line) ?? []) {
      const r = this.rowLines[i];
      if (!r) continue;
      for (const l of ['jaxpr', 'stablehlo', 'hlo'] as const) for (const n of r[l]) out[l].add(n);
    }
    return { jaxpr: [...out.jaxpr], stablehlo: [...out.stablehlo], hlo: [...out.hlo] };
  }

  /** The mapping table as Markdown, one row per jaxpr equation. */
  markdown(): string {
    return mappingToMarkdown(this.rows);
  }
}

function offsetOfLine(text: string, line: number): number {
  let pos = 0;
  for (let n = 1; n < line && pos >= 0; n++) pos = text.indexOf('\n', pos) + 1;
  return Math.max(0, pos);
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let p = text.indexOf('\n', from); p >= 0 && p < to; p = text.indexOf('\n', p + 1)) n++;
  return n;
}
