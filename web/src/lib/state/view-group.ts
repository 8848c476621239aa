import { groupKeyOf, isPassDump, layerGroups, layerOf, LAYERS, pickLayerDocs, type DocumentMeta, type Layer } from '@seam/shared/model';

/** The key and label of the pool of documents that belong to no capture and no module. */
export const LOOSE_KEY = 'loose';
export const LOOSE_LABEL = 'ungrouped documents';

/** What a layer is called where people read it. */
export const LAYER_NAMES: Readonly<Record<Layer, string>> = { jaxpr: 'jaxpr', stablehlo: 'StableHLO', hlo: 'HLO' };

/**
 * The documents a view pairs layers within: the capture or module group of one document, or, for
 * a document in neither, the room's other loose documents (pasted and uploaded one by one).
 */
export interface ViewGroup {
  /** `capture:<job>`, `module:<group>`, or {@link LOOSE_KEY}. */
  readonly key: string;
  /** "module 0042 jit_train_step", "capture #2", or {@link LOOSE_LABEL}. */
  readonly label: string;
  readonly docs: readonly DocumentMeta[];
  /** One document per layer of this group (optimized HLO preferred; see `pickLayerDocs`). */
  readonly layers: Partial<Record<Layer, DocumentMeta>>;
  /** The layers this group has no document of, top down. */
  readonly missing: readonly Layer[];
}

/**
 * The group `docId` pairs within, from `list` in list order; `prefer` picks a document of its layer
 * when the group has several (the pane shown, the document open). Null when `docId` is not listed.
 */
export function viewGroup(list: readonly DocumentMeta[], docId: string | null, prefer: string | null = docId): ViewGroup | null {
  const d = list.find((x) => x.id === docId);
  if (!d) return null;
  const key = groupKeyOf(d);
  const g = key === null ? null : layerGroups(list).find((x) => x.key === key);
  const docs = g ? g.docs : list.filter((x) => groupKeyOf(x) === null);
  const layers = pickLayerDocs(docs, prefer ?? undefined);
  return { key: g ? g.key : LOOSE_KEY, label: g ? g.label : LOOSE_LABEL, docs, layers, missing: LAYERS.filter((l) => !layers[l]) };
}

/** All three layers' document ids of `g`, or null when one is missing. */
export function completeLayers(g: ViewGroup | null): Record<Layer, string> | null {
  const l = g?.layers;
  return l?.jaxpr && l.stablehlo && l.hlo ? { jaxpr: l.jaxpr.id, stablehlo: l.stablehlo.id, hlo: l.hlo.id } : null;
}

/**
 * The panes split view opens for `current` within its group `g`: one document per layer top down
 * (with `current` first when it is of none, such as a buffer assignment), else `current` and the
 * next documents of its group; never a document of another group. At most `max`.
 */
export function splitPanes(g: ViewGroup, current: string, max: number): string[] {
  const pick = LAYERS.map((l) => g.layers[l]?.id).filter((id): id is string => id !== undefined);
  if (!pick.includes(current) && pick.length < max) pick.unshift(current);
  if (pick.length > 1) return pick.slice(0, max);
  return [current, ...g.docs.filter((d) => d.id !== current && !isPassDump(d)).map((d) => d.id)].slice(0, max);
}

/**
 * The three layers the panes show when they hold one document of each, all of group `g`; null when
 * a layer is missing from the panes or a pane of a layer belongs to another group.
 */
export function paneLayers(g: ViewGroup | null, panes: readonly DocumentMeta[]): Record<Layer, string> | null {
  if (!g) return null;
  const inGroup = new Set(g.docs.map((d) => d.id));
  const layered = panes.filter((d) => layerOf(d.kind) !== null && !isPassDump(d));
  if (layered.some((d) => !inGroup.has(d.id))) return null;
  return completeLayers({ ...g, layers: pickLayerDocs(layered), missing: [] });
}

/** "module 0008 jit_mlp has no jaxpr and no StableHLO", or null when nothing is missing. */
export function missingNote(g: ViewGroup): string | null {
  if (g.missing.length === 0) return null;
  return `${g.label} has no ${g.missing.map((l) => LAYER_NAMES[l]).join(' and no ')}`;
}
