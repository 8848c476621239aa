import { DIFF_KINDS, versionPairs, type CaptureEntry, type DocumentMeta } from '@seam/shared/model';

/** The documents a diff can compare: HLO before or after optimization, pass dumps included, in list order. */
export function diffableDocs(list: readonly DocumentMeta[]): DocumentMeta[] {
  return list.filter((d) => DIFF_KINDS.has(d.kind));
}

/**
 * The pair Compare opens first: the version pair (see `versionPairs`) whose later side is the open
 * document, else the room's last version pair, else the last two optimized HLO documents (else HLO)
 * of the list; null when the room holds fewer than two.
 */
export function defaultPair(list: readonly DocumentMeta[], captures: readonly CaptureEntry[], current: string | null): { a: string; b: string } | null {
  const pairs = versionPairs(list, captures);
  const p = pairs.find((x) => x.b.id === current || x.a.id === current) ?? pairs.at(-1);
  if (p) return { a: p.a.id, b: p.b.id };
  for (const kind of ['hlo-opt', 'hlo']) {
    const docs = list.filter((d) => d.kind === kind);
    const [a, b] = docs.slice(-2);
    if (a && b) return { a: a.id, b: b.id };
  }
  const any = diffableDocs(list).slice(-2);
  return any.length === 2 ? { a: any[0]!.id, b: any[1]!.id } : null;
}

/** Why two document ids cannot be diffed in this room (an unknown id, a document that is not HLO, the same one twice), or null when they can. */
export function pairProblem(list: readonly DocumentMeta[], a: string, b: string): string | null {
  if (a === b) return 'Pick two different documents to compare.';
  for (const id of [a, b]) {
    const d = list.find((x) => x.id === id);
    if (!d) return `This room has no document ${JSON.stringify(id.slice(0, 80))}.`;
    if (!DIFF_KINDS.has(d.kind)) return `${d.title} is ${d.kind}, not HLO: a diff compares two HLO modules (before or after optimization).`;
  }
  return null;
}
