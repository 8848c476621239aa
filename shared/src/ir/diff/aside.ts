import { DocumentKind } from '../../model/document';
import { diffGraphs, type DiffOptions } from './diff';
import type { DiffGraphData } from './graph-data';
import { prepareA, type PreparedA } from './match';
import { DiffGraph } from './side';
import { readDiffGraph } from './side-build';
import type { ModuleDiff } from './types';

/** Reads a text into a diff graph elsewhere (another thread), resolving to its data; rejects when that thread fails. */
export type GraphReader = (text: string, kind: DocumentKind) => Promise<DiffGraphData>;

/**
 * `diffModules` with the two texts read at once: B by `readB` (another thread, see
 * `graph-thread.ts`), A here meanwhile, with what matching needs of A alone (`prepareA`), then
 * matched here. Reading is most of a large diff's time (a 25 MB dump: about 0.75 s a side), and
 * each thread collects its own garbage. The same diff as `diffModules` gives.
 */
export async function diffModulesAside(textA: string, textB: string, options: DiffOptions, readB: GraphReader): Promise<ModuleDiff> {
  const pending = readB(textB, options.kindB ?? DocumentKind.hloOpt);
  let a: DiffGraph;
  let prepared: PreparedA;
  try {
    a = new DiffGraph(readDiffGraph(textA, options.kindA ?? DocumentKind.hloOpt));
    prepared = prepareA(a);
  } finally {
    // When reading A throws, that is the error said; B's, if any, is then marked handled.
    pending.catch(() => undefined);
  }
  return diffGraphs(a, new DiffGraph(await pending), options, prepared);
}
