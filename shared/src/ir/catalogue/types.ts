import type { DocumentKind } from '../../model/document';
import type { DumpIndex } from '../types';

/** The layers a card and a catalogue read, in lowering order. */
export const CatalogueLayer = { jaxpr: 'jaxpr', stablehlo: 'stablehlo', hlo: 'hlo', hloOpt: 'hlo-opt' } as const;
export type CatalogueLayer = (typeof CatalogueLayer)[keyof typeof CatalogueLayer];
export const CATALOGUE_LAYERS: readonly CatalogueLayer[] = Object.values(CatalogueLayer);

/** One layer's index, as the catalogue reads it: the analysis of one document of a group. */
export interface LayerIndex {
  readonly layer: CatalogueLayer;
  readonly index: Pick<DumpIndex, 'lines' | 'bytes' | 'keys' | 'values' | 'fusions'> & Partial<Pick<DumpIndex, 'kernels'>>;
  /** The dump's text, when at hand: casts then say the dtype they cast from, StableHLO custom calls their target (see `readTextDetails`). */
  readonly text?: string;
}

/** What production code adds to a program, as the catalogue groups it. */
export const CatalogueCategory = {
  remat: 'remat',
  barrier: 'barrier',
  sharding: 'sharding',
  collective: 'collective',
  cast: 'cast',
  customCall: 'custom-call',
  host: 'host',
} as const;
export type CatalogueCategory = (typeof CatalogueCategory)[keyof typeof CatalogueCategory];
export const CATALOGUE_CATEGORIES: readonly CatalogueCategory[] = Object.values(CatalogueCategory);

/** One place an entry occurs: an op of one layer. */
export interface CatalogueSite {
  readonly line: number;
  readonly from: number;
  readonly to: number;
  /** The op's result name(s) as the layer prints them. */
  readonly name: string;
  readonly op: string;
}

/** An entry's occurrences in one layer. */
export interface CatalogueOccurrences {
  readonly count: number;
  /** Bytes of the ops' results (0 where the index knows no type). */
  readonly bytes: number;
  readonly sites: readonly CatalogueSite[];
}

/**
 * One catalogue entry: a category and a label (`bf16` for casts to bf16, `all-reduce`, a custom
 * call's target, `rematted_computation`), with its occurrences per layer.
 */
export interface CatalogueEntry {
  readonly category: CatalogueCategory;
  readonly label: string;
  readonly layers: Partial<Record<CatalogueLayer, CatalogueOccurrences>>;
}

/** What one module has that another lacks, and what both have in different counts. */
export interface CatalogueComparison {
  readonly onlyHere: readonly CatalogueEntry[];
  readonly onlyThere: readonly CatalogueEntry[];
  /** Entries both have, with the largest per-layer count of each side. */
  readonly changed: readonly { readonly category: CatalogueCategory; readonly label: string; readonly here: number; readonly there: number }[];
}

/** Kinds of op a card counts. */
export const OpCategory = {
  matmul: 'matmul',
  elementwise: 'elementwise',
  reduce: 'reduce',
  movement: 'data movement',
  control: 'control flow',
  collective: 'collective',
  cast: 'cast',
  customCall: 'custom call',
  constant: 'constant/parameter',
  other: 'other',
} as const;
export type OpCategory = (typeof OpCategory)[keyof typeof OpCategory];

/** One layer of a lower() vs compile() card. */
export interface CardLayer {
  readonly layer: CatalogueLayer;
  readonly lines: number;
  readonly bytes: number;
  readonly ops: number;
  readonly opsByCategory: Partial<Record<OpCategory, number>>;
  readonly fusions: number;
  /** Fusions by kind (`kLoop`: 3). */
  readonly fusionKinds: Readonly<Record<string, number>>;
  readonly customCalls: number;
  readonly collectives: number;
  /** Lines and bytes against the first layer of the card (1 for that layer). */
  readonly linesRatio: number;
  readonly bytesRatio: number;
}

/** The lower() vs compile() card of one module group: its layers in lowering order. */
export interface LayerCard {
  readonly layers: readonly CardLayer[];
}

/** The catalogue layer of a document kind; `null` for kinds that hold no program. */
export function catalogueLayerOf(kind: DocumentKind): CatalogueLayer | null {
  return (CATALOGUE_LAYERS as readonly string[]).includes(kind) ? (kind as CatalogueLayer) : null;
}
